"""16 concurrent 9.9 MB pages of <a> tags posted to a `neardup serve`
process on loopback; prints the answers, the time and the server's peak
resident memory (VmHWM).

    python3 bench/hostile_serve.py target/release/neardup [serve options...]
"""
import json, subprocess, sys, threading, time, urllib.request, tempfile, os
binary = sys.argv[1]; extra = sys.argv[2:]
d = tempfile.mkdtemp()
p = subprocess.Popen([binary, "serve", "--data-dir", d, "--listen", "127.0.0.1:0"] + extra, stdout=subprocess.PIPE)
line = p.stdout.readline().decode()
addr = line.strip().rsplit("http://", 1)[1]
page = ("<html><body>" + "<a>x</a>" * (9_900_000 // 8) + "</body></html>").encode()
codes = []
def post(i):
    req = urllib.request.Request(f"http://{addr}/v1/documents?id=p{i}", data=page, headers={"content-type": "text/html"})
    try:
        with urllib.request.urlopen(req, timeout=300) as r: codes.append(r.status)
    except urllib.error.HTTPError as e: codes.append(e.code)
    except Exception as e: codes.append(str(e))
t0 = time.time()
ts = [threading.Thread(target=post, args=(i,)) for i in range(16)]
[t.start() for t in ts]; [t.join() for t in ts]
hwm = [l for l in open(f"/proc/{p.pid}/status") if l.startswith("VmHWM")][0].split()[1]
print(json.dumps({"codes": sorted(map(str, codes)), "seconds": round(time.time() - t0, 1), "peak_rss_mb": int(hwm) // 1024, "args": extra}))
p.terminate(); p.wait()
