"""How often a legacy-encoded name in an otherwise UTF-8 SGF file is
mis-decoded (mockgo.data.charsets): Fox server records carry some names in
GB2312 among UTF-8 values. Random names of 2 to 4 of GB2312's 3,755 common
characters, encoded in GB18030, as black's name of a UTF-8 header beside a
UTF-8 name and ranks; prints one JSON line.

    python benchmarks/charset_names.py --names 4000
"""

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mockgo.data.charsets import decode_sgf_bytes  # noqa: E402


def common_characters():
    """GB2312's first level: the 3,755 most common Chinese characters."""
    found = []
    for high in range(0xB0, 0xD8):
        for low in range(0xA1, 0xFF):
            try:
                found.append(bytes([high, low]).decode("gb2312"))
            except UnicodeDecodeError:
                pass
    return found


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--names", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    characters, rng = common_characters(), random.Random(args.seed)
    wrong, read_as = 0, {"korean": 0, "other": 0}
    start = time.perf_counter()
    for _ in range(args.names):
        name = "".join(rng.choice(characters) for _ in range(rng.randint(2, 4)))
        other = "".join(rng.choice(characters) for _ in range(rng.randint(2, 4)))
        data = (b"(;GM[1]FF[4]SZ[19]PB[" + name.encode("gb18030") + b"]PW[" + other.encode() +
                "]BR[9段]WR[8段]KM[7.5]AP[foxwq];B[pd])".encode())
        got = decode_sgf_bytes(data).split("PB[", 1)[1].split("]", 1)[0]
        if got != name:
            wrong += 1
            read_as["korean" if all("\uac00" <= c <= "\ud7a3" for c in got) else "other"] += 1
    print(json.dumps({"benchmark": "charset_names", "names": args.names, "wrong": wrong,
                      "wrong_share": round(wrong / args.names, 4), "wrong_read_as": read_as,
                      "seconds": round(time.perf_counter() - start, 2)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
