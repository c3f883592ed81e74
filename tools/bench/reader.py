"""One epoch of a data loader's reads, run inside the benchmark's host (standard library only):
several reader threads take the files in a shuffled order and read each one whole, the small
files in one read each as an image decoder would, the shards in 1 MiB records as a TFRecord
reader would. The files come from a directory (ramfs, the FUSE mount) or from an S3 bucket over
HTTP (AWS Signature V4, as any S3 client signs). Prints one JSON line:
{"bytes": .., "files": .., "seconds": ..}; exits 1 when a file's size is not the expected one.

  reader.py --index INDEX --threads 8 --seed 1 (--root DIR | --s3 URL --bucket B --key-file F)
INDEX lines: "<size> <relative path>".
"""

import argparse
import datetime
import hashlib
import hmac
import http.client
import json
import queue
import random
import sys
import threading
import time
import urllib.parse

RECORD = 1024 * 1024


def read_file(path, record):
    total = 0
    with open(path, "rb", buffering=0) as handle:
        while True:
            data = handle.read(record)
            if not data:
                return total
            total += len(data)


class S3:
    """GET object with Signature V4, one keep-alive connection per thread."""

    def __init__(self, url, bucket, access, secret, region="us-east-1"):
        parsed = urllib.parse.urlparse(url)
        self.host, self.port = parsed.hostname, parsed.port or 80
        self.bucket, self.access, self.secret, self.region = bucket, access, secret, region
        self.local = threading.local()

    def _sign(self, key, message):
        return hmac.new(key, message.encode(), hashlib.sha256).digest()

    def headers(self, path):
        now = datetime.datetime.now(datetime.timezone.utc)
        stamp, day = now.strftime("%Y%m%dT%H%M%SZ"), now.strftime("%Y%m%d")
        host = "%s:%d" % (self.host, self.port)
        empty = hashlib.sha256(b"").hexdigest()
        canonical = "\n".join(["GET", path, "", "host:" + host, "x-amz-content-sha256:" + empty,
                               "x-amz-date:" + stamp, "", "host;x-amz-content-sha256;x-amz-date", empty])
        scope = "%s/%s/s3/aws4_request" % (day, self.region)
        to_sign = "\n".join(["AWS4-HMAC-SHA256", stamp, scope, hashlib.sha256(canonical.encode()).hexdigest()])
        key = self._sign(("AWS4" + self.secret).encode(), day)
        for part in (self.region, "s3", "aws4_request"):
            key = self._sign(key, part)
        signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
        return {"Host": host, "x-amz-date": stamp, "x-amz-content-sha256": empty,
                "Authorization": "AWS4-HMAC-SHA256 Credential=%s/%s, SignedHeaders=host;x-amz-content-sha256;x-amz-date, "
                                 "Signature=%s" % (self.access, scope, signature)}

    def read(self, name, record):
        path = "/%s/%s" % (self.bucket, urllib.parse.quote(name))
        connection = getattr(self.local, "connection", None)
        if connection is None:
            connection = self.local.connection = http.client.HTTPConnection(self.host, self.port, timeout=120)
        connection.request("GET", path, headers=self.headers(path))
        response = connection.getresponse()
        if response.status != 200:
            raise OSError("GET %s: HTTP %d %s" % (path, response.status, response.read(300)))
        total = 0
        while True:
            data = response.read(record)
            if not data:
                return total
            total += len(data)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", required=True)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--record", type=int, default=RECORD, help="bytes per read() (a whole small file is one read)")
    parser.add_argument("--root")
    parser.add_argument("--s3")
    parser.add_argument("--bucket")
    parser.add_argument("--key-file", help="a file with 'ACCESS SECRET'")
    args = parser.parse_args()
    with open(args.index, encoding="utf-8") as handle:
        files = [(int(size), name) for size, name in (line.split(" ", 1) for line in handle.read().splitlines())]
    random.Random(args.seed).shuffle(files)  # a new order per epoch, as a data loader shuffles
    if args.s3:
        with open(args.key_file, encoding="utf-8") as handle:
            access, secret = handle.read().split()
        store = S3(args.s3, args.bucket, access, secret)
        read = store.read
    else:
        def read(name, record):
            return read_file(args.root.rstrip("/") + "/" + name, record)
    work = queue.Queue()
    for item in files:
        work.put(item)
    errors, totals = [], []

    def reader():
        total = 0
        while not errors:
            try:
                size, name = work.get_nowait()
            except queue.Empty:
                break
            try:
                got = read(name, max(args.record, size) if size <= RECORD else args.record)
            except OSError as error:
                errors.append("%s: %s" % (name, error))
                break
            if got != size:
                errors.append("%s: read %d bytes, expected %d" % (name, got, size))
                break
            total += got
        totals.append(total)

    threads = [threading.Thread(target=reader) for _thread in range(args.threads)]
    start = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    seconds = time.monotonic() - start
    if errors:
        print("reader: " + errors[0], file=sys.stderr)
        return 1
    print(json.dumps({"bytes": sum(totals), "files": len(files), "seconds": round(seconds, 4)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
