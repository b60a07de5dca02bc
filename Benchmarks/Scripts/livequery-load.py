#!/usr/bin/env python3
"""LiveQuery load for Benchmarks/Scripts/livequery.sh, with Python's standard library only.

  livequery-load.py subscribe PORT INDEX COUNT SUBSCRIPTIONS ROOMS OUT
      opens COUNT LiveQuery connections (numbered from INDEX) to the app `dev` on 127.0.0.1:PORT,
      each subscribing to SUBSCRIPTIONS queries {"room": r} on class Message (r cycles through
      ROOMS), prints "ready" once every subscription is answered, then listens until SIGTERM (and
      3 s more) and writes to OUT, as JSON: the events received, the errors, and each create
      event's delay from its save's request (the object's sentAt, CLOCK_MONOTONIC in ns) to its
      arrival.
  livequery-load.py save PORT RATE SECONDS ROOMS OUT
      saves Message objects {room, sentAt, text} at RATE a second for SECONDS over 32 keep-alive
      connections (each save waits for its answer), a random room each, and writes to OUT the saves
      answered 201, the other answers, each room's saves and the seconds it took.
"""
import asyncio, base64, collections, json, os, random, signal, struct, sys, time

APP, CLIENT_KEY, HOST = "dev", "bench-client", "127.0.0.1"
SAVERS = 32  # keep-alive connections the saves share, each waiting for its answer
TEXT = "A message of moderate size, roughly like one a person types into a chat before pressing send."


async def websocket(port, path="/parse"):
    """A WebSocket client connection (reader, writer) after the HTTP upgrade."""
    reader, writer = await asyncio.open_connection(HOST, port)
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write((f"GET {path} HTTP/1.1\r\nHost: {HOST}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    status = await reader.readline()
    if b" 101 " not in status:
        raise RuntimeError(f"the upgrade answered {status!r}")
    while (await reader.readline()) not in (b"\r\n", b""):
        pass
    return reader, writer


def frame(opcode, payload):
    """A masked client frame (RFC 6455 section 5.2)."""
    mask, length = os.urandom(4), len(payload)
    if length < 126:
        head = struct.pack(">BB", 0x80 | opcode, 0x80 | length)
    elif length < 65536:
        head = struct.pack(">BBH", 0x80 | opcode, 0x80 | 126, length)
    else:
        head = struct.pack(">BBQ", 0x80 | opcode, 0x80 | 127, length)
    masked = bytes(byte ^ mask[i % 4] for i, byte in enumerate(payload))
    return head + mask + masked


def send(writer, message):
    writer.write(frame(0x1, json.dumps(message).encode()))


async def receive(reader, writer):
    """The next text message as JSON, answering pings on the way; None once the server closes."""
    message = b""
    while True:
        first, second = await reader.readexactly(2)
        length = second & 0x7F
        if length == 126:
            length = struct.unpack(">H", await reader.readexactly(2))[0]
        elif length == 127:
            length = struct.unpack(">Q", await reader.readexactly(8))[0]
        payload = await reader.readexactly(length)
        opcode = first & 0x0F
        if opcode == 0x9:
            writer.write(frame(0xA, payload))
        elif opcode == 0x8:
            return None
        elif opcode in (0x0, 0x1):
            message += payload
            if first & 0x80:
                return json.loads(message)


async def subscriber(port, number, subscriptions, rooms):
    """A connection holding its subscriptions, each answered."""
    reader, writer = await websocket(port)
    send(writer, {"op": "connect", "applicationId": APP, "clientKey": CLIENT_KEY})
    answer = await receive(reader, writer)
    if not answer or answer.get("op") != "connected":
        raise RuntimeError(f"connect answered {answer}")
    for request in range(1, subscriptions + 1):
        room = (number * subscriptions + request - 1) % rooms
        send(writer, {"op": "subscribe", "requestId": request, "query": {"className": "Message", "where": {"room": room}}})
    answered = 0
    while answered < subscriptions:
        answer = await receive(reader, writer)
        if not answer or answer.get("op") != "subscribed":
            raise RuntimeError(f"subscribe answered {answer}")
        answered += 1
    return reader, writer


async def listen(reader, writer, found):
    """Counts what one connection receives until it closes or the task is cancelled."""
    while True:
        message = await receive(reader, writer)
        arrived = time.monotonic_ns()
        if message is None:
            found["closed"] += 1
            break
        op = message.get("op")
        found["events"][op] += 1
        if op == "create":
            found["delays"].append(arrived - int(message["object"]["sentAt"]))
        elif op == "error":
            found["errors"].append(message)
    writer.close()


async def subscribe_main(port, index, count, subscriptions, rooms, out):
    found = {"events": collections.Counter(), "delays": [], "errors": [], "closed": 0}
    gate = asyncio.Semaphore(50)  # connections opened at once

    async def opened(number):
        async with gate:
            return await subscriber(port, number, subscriptions, rooms)

    connections = await asyncio.gather(*(opened(index + i) for i in range(count)))
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    listening = [asyncio.create_task(listen(reader, writer, found)) for reader, writer in connections]
    print("ready", flush=True)
    await stop.wait()
    await asyncio.sleep(3)  # events still on their way
    for task in listening:
        task.cancel()
    await asyncio.gather(*listening, return_exceptions=True)
    with open(out, "w") as file:
        json.dump({"events": found["events"], "delays": found["delays"], "errors": found["errors"][:20],
                   "closed": found["closed"]}, file)


async def saver(port, per_second, until, rooms, found):
    """One keep-alive connection saving at `per_second` until `until` (monotonic seconds)."""
    reader, writer = await asyncio.open_connection(HOST, port)
    interval, next_time = 1 / per_second, time.monotonic()
    while next_time < until:
        await asyncio.sleep(max(0, next_time - time.monotonic()))
        room = random.randrange(rooms)
        body = json.dumps({"room": room, "sentAt": time.monotonic_ns(), "text": TEXT}).encode()
        writer.write(b"POST /parse/classes/Message HTTP/1.1\r\nHost: " + HOST.encode() + b"\r\n"
                     b"X-Parse-Application-Id: " + APP.encode() + b"\r\nX-Parse-REST-API-Key: " + CLIENT_KEY.encode() +
                     b"\r\nContent-Type: application/json\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
        status = int((await reader.readline()).split()[1])
        length = 0
        while (line := await reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        await reader.readexactly(length)
        if status == 201:
            found["saved"] += 1
            found["rooms"][room] += 1
        else:
            found["refused"][status] += 1
        next_time += interval
    writer.close()


async def save_main(port, rate, seconds, rooms, out):
    found = {"saved": 0, "refused": collections.Counter(), "rooms": collections.Counter()}
    started = time.monotonic()
    await asyncio.gather(*(saver(port, rate / SAVERS, started + seconds, rooms, found) for _ in range(SAVERS)))
    found["seconds"] = time.monotonic() - started
    with open(out, "w") as file:
        json.dump(found, file)


if __name__ == "__main__":
    mode, arguments = sys.argv[1], sys.argv[2:]
    if mode == "subscribe":
        port, index, count, subscriptions, rooms = map(int, arguments[:5])
        asyncio.run(subscribe_main(port, index, count, subscriptions, rooms, arguments[5]))
    elif mode == "save":
        port, rate, seconds, rooms = map(int, arguments[:4])
        asyncio.run(save_main(port, rate, seconds, rooms, arguments[4]))
    else:
        sys.exit(__doc__)
