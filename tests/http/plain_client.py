#!/usr/bin/env python3
"""A plain HTTP client, Python's http.client, that sends a whole request body before it reads
the answer, as most clients do. Usage: plain_client.py PORT BODY_BYTES. Prints the status and
then the body it read, and exits 0; or prints the error it met (a broken pipe, a reset) and
exits 1. Run by tests/http/lingering_close_test.cpp."""
import http.client
import sys


def main():
    port, size = int(sys.argv[1]), int(sys.argv[2])
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        connection.request("POST", "/echo/python", body=b"x" * size,
                           headers={"Content-Type": "application/json"})
        response = connection.getresponse()
        print(response.status)
        print(response.read().decode())
    except OSError as error:
        print("error", repr(error))
        return 1
    finally:
        connection.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
