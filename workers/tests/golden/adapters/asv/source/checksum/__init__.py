"""A tiny package for asv to measure: an FNV-1a checksum."""

import os

# How many times fnv1a goes over its input: the second commit sets 2 (twice the work).
ROUNDS = 1


def fnv1a(data: bytes) -> int:
    value = 0xCBF29CE484222325
    for _ in range(ROUNDS):
        for byte in data:
            value = ((value ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return value


def table(size: int) -> list[int]:
    return [fnv1a(bytes([i % 256])) for i in range(size)]


def read_input(path: str = os.path.join("missing", "input.bin")) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()
