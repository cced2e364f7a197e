#!/usr/bin/env python3
"""Peak memory and time of `neardup extract` and `neardup dedup` on hostile
pages of SIZE MB each (default 30), generated in a temporary directory.

    python3 bench/hostile_pages.py [--size MB] [--binary PATH]

Needs GNU time (`/usr/bin/time -v`). Prints a Markdown table. Not run by CI.
"""
import argparse
import os
import random
import re
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def pages(n):
    r = random.Random(1)
    links = []
    size = 0
    while size < n:
        s = '<a href="/p/%d">link %d</a>\n' % (r.randrange(10**6), r.randrange(1000))
        links.append(s)
        size += len(s)

    def rep(unit, head='<html><body>'):
        return head + unit * (n // len(unit)) + '</body></html>'

    return {
        '<a> tags': rep('<a>'),
        '<a href> links': '<html><body>' + ''.join(links) + '</body></html>',
        '<p>w</p>': rep('<p>w</p>'),
        'divs with attributes': rep('<div class="c" id="i1" data-x="y">t</div>'),
        'table rows': rep('<tr><td>a</td><td>b</td></tr>', '<html><body><table>'),
        '<div> nesting': rep('<div>'),
        '<br> void tags': rep('<br>'),
        'comments': rep('<!-- c -->x'),
        '</p> end tags (each makes a <p>)': rep('</p>'),
        'script and title elements': rep('<script>a</script><title>t</title>'),
        '<b> reopened after each </p>': rep('y</p>', '<html><body><div><p><b>x</p>'),
        'plain text': rep('word '),
    }


def measure(cmd):
    out = subprocess.run(['/usr/bin/time', '-v'] + cmd, capture_output=True, text=True)
    rss = int(re.search(r'Maximum resident set size \(kbytes\): (\d+)', out.stderr).group(1))
    wall = re.search(r'Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)', out.stderr).group(1)
    m, s = wall.split(':')[-2:]
    return rss / 1024, float(m) * 60 + float(s)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--size', type=float, default=30)
    ap.add_argument('--binary', default=os.path.join(ROOT, 'target', 'release', 'neardup'))
    args = ap.parse_args()
    n = int(args.size * 1e6)
    print(f'| page ({args.size:g} MB) | extract peak RSS | extract time | dedup peak RSS | dedup time |')
    print('|---|---|---|---|---|')
    with tempfile.TemporaryDirectory() as tmp:
        for name, html in pages(n).items():
            path = os.path.join(tmp, 'page.html')
            with open(path, 'w') as f:
                f.write(html)
            out = os.path.join(tmp, 'out.jsonl')
            er, et = measure([args.binary, 'extract', '-q', '-j', '1', path, '-o', out])
            dr, dt = measure([args.binary, 'dedup', '-q', '-j', '1', path, '-o', out])
            print(f'| {name} | {er:.0f} MB | {et:.2f} s | {dr:.0f} MB | {dt:.2f} s |')


if __name__ == '__main__':
    main()
