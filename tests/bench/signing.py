"""What a signed receipt costs: the rules service signs the receipts of one event-loop turn under
one Merkle root (services.runtime.signing); the client checks each one it keeps."""

import secrets
import time

from services.runtime.signing import Signer, merkle, receipt_message, root_message, root_of, verify

GAME = "g-0123456789abcdef0123"


def main(rounds: int = 2000) -> None:
    signer = Signer(secrets.token_bytes(32))
    heads = [receipt_message(GAME, v, secrets.token_hex(32)) for v in range(256)]
    for size in (1, 16, 128):
        batch = heads[:size]
        started = time.perf_counter()
        for _ in range(rounds // size + 1):
            root, paths = merkle(batch)
            signature = signer.sign(root_message(root))
        per = (time.perf_counter() - started) / ((rounds // size + 1) * size) * 1e6
        print(f"  sign, batches of {size:>3}: {per:6.1f} us per receipt")
    started = time.perf_counter()
    for _ in range(rounds // 4):
        verify(signer.public, root_message(root_of(batch[5], 5, paths[5])), signature)
    per = (time.perf_counter() - started) / (rounds // 4) * 1e6
    print(f"  check one receipt (client, batch of 128): {per:.1f} us")


if __name__ == "__main__":
    main()
