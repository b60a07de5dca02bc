# The steady client of address-flood.sh: sequential saves of app dev from 127.0.0.2 for N seconds,
# one every 50 ms; prints how many, their statuses and the p50/p99 in ms.
import socket, sys, time
port, key, secs = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
body = b'{"title":"steady"}'
req = (f"POST /parse/classes/Steady HTTP/1.1\r\nHost: x\r\nX-Parse-Application-Id: dev\r\nX-Parse-REST-API-Key: {key}\r\n"
       f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body
s = socket.socket(); s.bind(("127.0.0.2", 0)); s.connect(("127.0.0.1", port))
lat = []; end = time.time() + secs; codes = {}
while time.time() < end:
    t = time.perf_counter(); s.sendall(req); buf = b""
    while b"\r\n\r\n" not in buf: buf += s.recv(65536)
    head, rest = buf.split(b"\r\n\r\n", 1)
    n = int([l.split(b":")[1] for l in head.split(b"\r\n") if l.lower().startswith(b"content-length")][0])
    while len(rest) < n: rest += s.recv(65536)
    lat.append((time.perf_counter() - t) * 1000); c = head.split(b" ")[1].decode(); codes[c] = codes.get(c, 0) + 1
    time.sleep(0.05)
lat.sort()
print(f"saves={len(lat)} codes={codes} p50={lat[len(lat)//2]:.2f}ms p99={lat[int(len(lat)*0.99)]:.2f}ms")
