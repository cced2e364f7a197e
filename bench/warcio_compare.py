#!/usr/bin/env python3
"""HTML pages read by warcio and by neardup from the same archives.

    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install warcio
    /tmp/venv/bin/python bench/warcio_compare.py [ARCHIVE...]

Default archives: crates/io/tests/data/*.warc*, *.arc*. For warcio a page is
a `response` or `resource` record (or an ARC record) with a 2xx status, an
HTML Content-Type and a body it can read (`content_stream`); for neardup, a
line of `neardup extract` output without "error". Not run by CI.
"""
import glob
import json
import os
import subprocess
import sys

from warcio.archiveiterator import ArchiveIterator

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NEARDUP = os.environ.get('NEARDUP', os.path.join(ROOT, 'target', 'release', 'neardup'))


def warcio_pages(path):
    pages, note = 0, ''
    try:
        with open(path, 'rb') as f:
            for rec in ArchiveIterator(f, arc2warc=True):
                if rec.rec_type not in ('response', 'resource'):
                    continue
                ct = ''
                status = '200'
                if rec.http_headers is not None:
                    ct = rec.http_headers.get_header('Content-Type') or ''
                    status = rec.http_headers.get_statuscode() or '200'
                else:
                    ct = rec.rec_headers.get_header('Content-Type') or ''
                if not status.startswith('2') or 'html' not in ct.lower():
                    continue
                try:
                    rec.content_stream().read()
                    pages += 1
                except Exception as e:  # noqa: BLE001
                    note = f'body error: {e}'
    except Exception as e:  # noqa: BLE001
        note = f'stopped: {type(e).__name__}: {e}'
    return pages, note


def neardup_pages(path):
    out = subprocess.run([NEARDUP, 'extract', '-q', path], capture_output=True, text=True).stdout
    lines = [json.loads(l) for l in out.splitlines() if l.strip()]
    ok = [l for l in lines if 'error' not in l]
    return len(ok), sum(1 for l in ok if l.get('truncated'))


def main():
    paths = sys.argv[1:] or sorted(
        glob.glob(os.path.join(ROOT, 'crates/io/tests/data/*.warc*'))
        + glob.glob(os.path.join(ROOT, 'crates/io/tests/data/*arc*')))
    print('| archive | warcio pages | neardup pages (truncated) | warcio note |')
    print('|---|---|---|---|')
    tw = tn = 0
    for p in dict.fromkeys(paths):
        w, note = warcio_pages(p)
        n, t = neardup_pages(p)
        tw += w
        tn += n
        print(f'| {os.path.basename(p)} | {w} | {n} ({t}) | {note} |')
    print(f'| all | {tw} | {tn} | |')


if __name__ == '__main__':
    main()
