"""A TCP proxy that makes a loopback server behave like a remote one: every byte is held back by
a one-way delay in each direction (so a request's round trip costs twice the delay, as netem's
`delay` would), and the bytes sent back share one bandwidth limit (a token bucket, as tc's `tbf`
would). The kernel here has no netem, hence a proxy.

  throttle.py --listen HOST:PORT --to HOST:PORT --delay-ms 10 --rate-mib 64
"""

import argparse
import asyncio
import time

CHUNK = 64 * 1024


class Bucket:
    """Tokens in bytes, refilled at `rate` per second, shared by every connection's replies."""

    def __init__(self, rate):
        self.rate = rate
        self.tokens = 0.0
        self.stamp = time.monotonic()
        self.lock = asyncio.Lock()

    async def take(self, count):
        async with self.lock:
            now = time.monotonic()
            self.tokens = min(self.rate * 0.05, self.tokens + (now - self.stamp) * self.rate)  # bursts of 50 ms at most
            self.stamp = now
            self.tokens -= count
            if self.tokens < 0:
                await asyncio.sleep(-self.tokens / self.rate)


async def pipe(reader, writer, delay, bucket):
    """Copies reader to writer, each chunk released `delay` seconds after it arrived, and passes
    the end of the stream on as a half close. True when the stream ended, False on an error."""
    queue = asyncio.Queue()

    async def receive():
        while True:
            data = await reader.read(CHUNK)
            await queue.put((time.monotonic() + delay, data))
            if not data:
                return

    async def send():
        while True:
            due, data = await queue.get()
            wait = due - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            if not data:
                writer.write_eof()
                return
            if bucket:
                await bucket.take(len(data))
            writer.write(data)
            await writer.drain()

    try:
        await asyncio.gather(receive(), send())
        return True
    except (ConnectionError, OSError):
        return False


async def relay(client_reader, client_writer, target, delay, bucket):
    """One client connection: requests go out delayed, replies come back delayed and rate
    limited. A half close is passed on; an error on either side ends both."""
    try:
        server_reader, server_writer = await asyncio.open_connection(*target)
    except OSError:
        client_writer.close()
        return
    directions = [asyncio.ensure_future(pipe(client_reader, server_writer, delay, None)),
                  asyncio.ensure_future(pipe(server_reader, client_writer, delay, bucket))]
    pending = directions
    while pending:
        done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
        if not all(task.result() for task in done):
            for task in pending:
                task.cancel()
            break
    for writer in (client_writer, server_writer):
        writer.close()


async def serve(listen, target, delay, bucket):
    server = await asyncio.start_server(lambda r, w: relay(r, w, target, delay, bucket), *listen)
    async with server:
        await server.serve_forever()


def address(text):
    host, port = text.rsplit(":", 1)
    return host, int(port)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--listen", type=address, required=True)
    parser.add_argument("--to", type=address, required=True)
    parser.add_argument("--delay-ms", type=float, required=True, help="one-way delay; a round trip costs twice this")
    parser.add_argument("--rate-mib", type=float, required=True, help="MiB/s shared by all replies")
    args = parser.parse_args()
    asyncio.run(serve(args.listen, args.to, args.delay_ms / 1000.0, Bucket(args.rate_mib * 1024 * 1024)))


if __name__ == "__main__":
    main()
