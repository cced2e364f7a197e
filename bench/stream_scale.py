#!/usr/bin/env python3
"""A corpus too large to keep, streamed into one run: `neardup-bench
realtext` writes N documents to the standard input of `neardup dedup` (or
`neardup spans`) and their labels beside; the run's time, peak RSS and the
high-water mark of its spill directory are measured, and a dedup run is
scored against the labels (`bench/label_score.py`). For 10^8 documents,
whose text (160 GB) does not fit on this machine's disk (issue 37).

  python3 bench/stream_scale.py --docs 100000000 --dir /tmp/scale8 \\
      [--command dedup|spans] [-- EXTRA ARGS...]

  e.g. -- --verify-sketch            (dedup: about 520 B a document on disk)
       --command spans -- --unit paragraph

Needs `cargo build --release -p neardup-cli -p neardup-bench` and `zstd`
(the labels are kept compressed), run from the repository (the generator
reads ../shared/eval). The generator runs on one
core beside the run; both are timed from the first byte. The run's
progress line (documents, rate, time left) goes to standard error.
Standard library only.
"""
import argparse, os, shutil, subprocess, sys, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get('NEARDUP_BIN', os.path.join(ROOT, 'target', 'release'))


def du(path):
    """Bytes of the files under `path` (files vanish while we walk)."""
    total = 0
    for top, _, files in os.walk(path):
        for f in files:
            try:
                total += os.lstat(os.path.join(top, f)).st_size
            except FileNotFoundError:
                pass
    return total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--docs', type=int, required=True)
    ap.add_argument('--dir', required=True, help='work directory (spill, output, labels)')
    ap.add_argument('--command', choices=['dedup', 'spans'], default='dedup')
    ap.add_argument('--every', type=float, default=2.0, help='seconds between disk samples')
    ap.add_argument('extra', nargs='*', help='more arguments of the run (after --)')
    a = ap.parse_args()
    spill = os.path.join(a.dir, 'spill')
    shutil.rmtree(spill, ignore_errors=True)
    os.makedirs(spill)
    # The labels go through zstd (41 bytes a document plain: 4 GB at 10^8).
    labels = os.path.join(a.dir, 'labels.jsonl.zst')
    rfd, wfd = os.pipe()
    packer = subprocess.Popen(['zstd', '-q', '-f', '-o', labels], stdin=rfd)
    os.close(rfd)
    # The output goes through zstd too (80 bytes a document plain: 8 GB
    # at 10^8, beside a spill directory of 54 GB).
    out = os.path.join(a.dir, f'{a.command}.jsonl.zst')
    report = os.path.join(a.dir, 'report.json')
    gen = subprocess.Popen(
        [os.path.join(BIN, 'neardup-bench'), 'realtext', '--docs', str(a.docs),
         '--labels', f'/dev/fd/{wfd}'],
        stdout=subprocess.PIPE, cwd=ROOT, pass_fds=(wfd,))
    os.close(wfd)
    t0 = time.perf_counter()
    run = subprocess.Popen(
        [os.path.join(BIN, 'neardup'), a.command, '-', '--spill-dir', spill,
         '--report', report, *a.extra],
        stdin=gen.stdout, stdout=subprocess.PIPE)
    gen.stdout.close()
    written = subprocess.Popen(['zstd', '-q', '-f', '-o', out], stdin=run.stdout)
    run.stdout.close()
    high = [0]
    done = threading.Event()

    def sample():
        while not done.wait(a.every):
            high[0] = max(high[0], du(spill))
    threading.Thread(target=sample, daemon=True).start()
    _, status, usage = os.wait4(run.pid, 0)
    wall = time.perf_counter() - t0
    done.set()
    if gen.wait() or packer.wait() or written.wait() or status:
        sys.exit(f'the generator ({gen.returncode}), zstd ({packer.returncode}, '
                 f'{written.returncode}) or the run ({status}) failed')
    rss = usage.ru_maxrss * 1024
    print(f'documents {a.docs:,}; wall {wall:.0f} s; peak RSS {rss / 2**20:,.0f} MiB '
          f'({(rss - (256 << 20)) / a.docs:.0f} B/doc over 256 MiB); '
          f'spill directory at most {high[0] / 1e9:.2f} GB ({high[0] / a.docs:.0f} B/doc)', flush=True)
    if a.command == 'dedup':
        unpack = subprocess.Popen(['zstd', '-dcq', labels], stdout=subprocess.PIPE)
        result = subprocess.Popen(['zstd', '-dcq', out], stdout=subprocess.PIPE)
        fd = result.stdout.fileno()
        subprocess.run([sys.executable, os.path.join(ROOT, 'bench', 'label_score.py'), '-',
                        f'/dev/fd/{fd}'], stdin=unpack.stdout, pass_fds=(fd,), check=True)
        unpack.stdout.close()
        result.stdout.close()
        if unpack.wait() or result.wait():
            sys.exit('zstd could not read the labels or the output back')


if __name__ == '__main__':
    main()
