"""`tabula fair`: recompute fair-play draws by hand (protocol v1): commit, roll, shuffle."""

from collections.abc import Sequence
from typing import Annotated

import msgspec
import typer

from domain import fairplay
from services.cli.common import err, out

fair = typer.Typer(
    no_args_is_help=True,
    help="Recompute fair-play draws by hand (protocol v1): commit, roll, shuffle.",
)

ServerSeed = Annotated[str, typer.Option("--server-seed", help="The revealed seed (64 hex).")]
GameOpt = Annotated[str, typer.Option("--game", help="The game id.")]
MixOpt = Annotated[str | None, typer.Option("--mix", help="The mix (64 hex).")]
ClientSeeds = Annotated[
    list[str] | None,
    typer.Option("--client-seed", help="Client seeds in seat order (repeat), instead of --mix."),
]
NonceOpt = Annotated[int, typer.Option("--nonce", min=0, help="The draw's nonce.")]


def fair_mix(mix: str | None, client_seeds: Sequence[str] | None) -> str:
    if (mix is None) == (not client_seeds):
        err.print("[red]give either --mix or one --client-seed per seat, in seat order[/]")
        raise typer.Exit(2)
    return mix if mix is not None else fairplay.mix(list(client_seeds or ()))


def fair_fail(exc: ValueError) -> typer.Exit:
    err.print(str(exc), style="red", markup=False)
    return typer.Exit(2)


@fair.command("commit")
def fair_commit(server_seed: ServerSeed) -> None:
    """Print SHA256(server_seed): it must equal the game's SeedCommitted."""
    try:
        out.print(fairplay.seed_commitment(server_seed), highlight=False)
    except ValueError as exc:
        raise fair_fail(exc) from None


@fair.command("roll")
def fair_roll(
    server_seed: ServerSeed,
    game: GameOpt,
    nonce: NonceOpt,
    n: Annotated[int, typer.Option("--n", help="Faces (die) or range (uniform).")],
    mix: MixOpt = None,
    client_seed: ClientSeeds = None,
    kind: Annotated[str, typer.Option("--kind", help="die (n <= 256) or uniform.")] = "die",
) -> None:
    """Recompute a RandomDrawn: print its value and the stream's first block."""
    try:
        m = fair_mix(mix, client_seed)
        if kind == "die":
            value = fairplay.die(server_seed, game, m, nonce, n)
        elif kind == "uniform":
            value = fairplay.uniform(server_seed, game, m, nonce, n)
        else:
            raise ValueError(f"--kind is die or uniform, not {kind!r}")
        block = fairplay.stream_block(server_seed, game, m, nonce, 0).hex()
    except ValueError as exc:
        raise fair_fail(exc) from None
    out.print(f"value: {value}", highlight=False)
    out.print(f"{kind}({n}) at nonce {nonce} of {game}", highlight=False)
    out.print(f"mix: {m}", highlight=False)
    out.print(f"stream block (cursor 0): {block}", highlight=False)


@fair.command("shuffle")
def fair_shuffle(
    server_seed: ServerSeed,
    game: GameOpt,
    nonce: NonceOpt,
    k: Annotated[int, typer.Option("--k", min=0, help="Cards in the deck.")],
    mix: MixOpt = None,
    client_seed: ClientSeeds = None,
) -> None:
    """Recompute a DeckShuffled: print the order (canonical index at each deck position)."""
    try:
        order = fairplay.shuffle(server_seed, game, fair_mix(mix, client_seed), nonce, k)
    except ValueError as exc:
        raise fair_fail(exc) from None
    out.print(f"order: {msgspec.json.encode(order).decode()}", highlight=False)
