"""What a signed receipt costs: the rules service signs one per accepted command (and one per
seal); the client checks each one it keeps."""

import secrets
import time
from collections.abc import Callable

from services.runtime.signing import Signer, receipt_message, verify

GAME = "g-0123456789abcdef0123"


def per_call_us(fn: Callable[[], object], n: int) -> float:
    started = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - started) / n * 1e6


def main(n: int = 20_000) -> None:
    signer = Signer(secrets.token_bytes(32))
    head = secrets.token_hex(32)
    signature = signer.receipt(GAME, 42, head)
    message = receipt_message(GAME, 42, head)
    sign = per_call_us(lambda: signer.receipt(GAME, 42, head), n)
    check = per_call_us(lambda: verify(signer.public, message, signature), n // 4)
    print(f"  sign a receipt (rules service): {sign:.1f} us; check one (client): {check:.1f} us")


if __name__ == "__main__":
    main()
