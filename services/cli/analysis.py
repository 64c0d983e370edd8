"""The commands about the rulesets themselves, offline: perft, legal, rulesets, schema."""

from pathlib import Path
from typing import Annotated, Any

import msgspec
import typer
from rich.markup import escape

from domain.core import Ruleset, VariantError, VariantSpec
from domain.core.ruleset import perft_of
from domain.core.variant import (
    allowed,
    defaults,
    describe,
    format_value,
    format_values,
    requirement,
)
from domain.registry import RULESETS, find_ruleset
from services.cli.common import err, out


def _started(ruleset: str, variant: str, position: str) -> tuple[Ruleset[Any, Any], Any]:
    """The ruleset and its game's first state; exit 2 with the typed error if refused.

    `create` refuses a position whose game, or one of its games, is over (a new game needs a
    move to play); this loads it as chess tools load a mate: `start` reads it with the result,
    printed here first, and nothing is legal for the side whose game is over."""
    try:
        rs = find_ruleset(ruleset)
        return rs, rs.start(rs.create(variant, position))
    except VariantError as exc:
        refused = exc
    state, over = None, []
    if position and ruleset in RULESETS:
        rs = RULESETS[ruleset]
        try:  # the variant as `create` reads it, then the position as `start` reads it
            blank = rs.create(variant)
            state = rs.start(msgspec.structs.replace(blank, position=position, hidden_setup=False))
        except VariantError:
            state = None
    if state is not None:
        outcome = rs.outcome(state)
        if outcome is not None:
            over.append(f"game over: {outcome.result} ({outcome.reason})")
        else:  # several games on one board (Secondary Yiora): the ones that are over
            games = rs.view(state, None).get("games", [])
            over += [f"game {g['game']} over: {g['result']} ({g['reason']})"
                     for g in games if g.get("result")]  # fmt: skip
    if not over:  # refused for another reason than a finished game: the refusal stands
        err.print(f"[red]{refused.code}: {refused.reason}[/]")
        raise typer.Exit(2)
    for line in over:
        out.print(line, markup=False, highlight=False)
    return rs, state


def perft(
    ruleset: str,
    depth: Annotated[int, typer.Option(min=0, help="Plies to count.")] = 1,
    position: Annotated[str, typer.Option(help="Start position (ruleset notation).")] = "",
    variant: Annotated[str, typer.Option(help="Variant string.")] = "",
) -> None:
    """Count leaf positions of the move tree (the classic move-generator check); a position
    whose game is over counts 0, its result printed first."""
    # Yavoch declares none: its tree hangs on dice and cards, so leaves are not positions.
    # Checked before the position is read, which may print a result.
    known = RULESETS.get(ruleset)
    if known is not None and perft_of(known) is None:
        with_perft = ", ".join(sorted(n for n, r in RULESETS.items() if perft_of(r)))
        err.print(f"[red]{known.name} declares no perft (its moves hang on dice and cards); "
                  f"rulesets with perft: {with_perft}[/]")  # fmt: skip
        raise typer.Exit(2)
    rs, state = _started(ruleset, variant, position)
    counter = perft_of(rs)
    assert counter is not None  # checked above
    out.print(counter.perft(state, depth))


# Actions that are not moves: resigning, draw offers and answers (also per game, `bsq:offer-draw`),
# and 3-D Chess's demand.
NOT_MOVES = frozenset({"resign", "offer-draw", "accept-draw", "decline-draw", "demand-mate"})


def legal(
    ruleset: str,
    position: Annotated[str, typer.Option(help="Start position (ruleset notation).")] = "",
    variant: Annotated[str, typer.Option(help="Variant string.")] = "",
) -> None:
    """Every legal move of the seats to act, one a line, sorted, then `total N`; for a
    position whose game is over its result first (and no move for the side whose game it is)."""
    rs, state = _started(ruleset, variant, position)
    texts = {rs.format_action(state, action) for seat in sorted(rs.to_act(state))
             for action in rs.legal_actions(state, seat)}  # fmt: skip
    moves = sorted(t for t in texts if t.rpartition(":")[2] not in NOT_MOVES)
    for text in moves:
        out.print(text, markup=False, highlight=False)
    out.print(f"total {len(moves)}")


def schema(
    out_dir: Annotated[Path, typer.Option("--out", help="Where to write.")] = Path("docs/schemas"),
) -> None:
    """Export JSON Schema for every message into docs/schemas/."""
    from contracts.schemas import all_schemas

    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        for name, doc in all_schemas().items():
            (out_dir / f"{name}.json").write_bytes(msgspec.json.format(msgspec.json.encode(doc)))
    except OSError as exc:
        err.print(f"cannot write {exc.filename}: {exc.strerror}", style="red", markup=False,
                  highlight=False)  # fmt: skip
        raise typer.Exit(2) from None
    out.print(
        f"wrote {len(all_schemas())} schemas to {out_dir} (rulesets: {', '.join(sorted(RULESETS))})"
    )


def rulesets(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON, for machines.")] = False,
) -> None:
    """List every ruleset with its named variants and parameters: defaults and allowed values."""
    if as_json:
        doc = [{"name": name, **describe(rs.variants)} for name, rs in RULESETS.items()]
        typer.echo(msgspec.json.format(msgspec.json.encode(doc)).decode())
        return
    for name, rs in RULESETS.items():
        for line in spec_lines(name, rs.variants):
            out.print(line, highlight=False)


def spec_lines(name: str, spec: VariantSpec[Any]) -> list[str]:
    """A ruleset's variants as an indented list (rich markup, the texts escaped)."""
    if not spec.variants and not spec.parameters:
        return [f'[bold]{name}[/] (no variants: only "")']
    default = format_values(spec, defaults(spec))
    lines = [f'[bold]{name}[/] (variant "" is {default or "every default"})']
    names = [v.name for v in spec.variants] + [p.name for p in spec.parameters]
    width = 2 + max(len(n) for n in names)
    if spec.variants:
        where = "first" if spec.first else "anywhere"
        lines.append(f"  {spec.key}s (one, written {where}; default {spec.default_variant}):")
        lines += [f"    {v.name:<{width}}{escape(v.description)}" for v in spec.variants]
    sections = (
        ("values written alone", [p for p in spec.parameters if p.bare and not p.flag]),
        ("flags (set by naming them)", [p for p in spec.parameters if p.flag]),
        ("parameters (key=value)", [p for p in spec.parameters if not p.bare]),
    )
    for title, params in sections:
        if params:
            lines.append(f"  {title}:")
        for p in params:
            facts = (
                ["off by default"]
                if p.flag
                else [allowed(p), f"default {format_value(p, p.default)}"]
            )
            if p.only:
                ignored = ", ignored otherwise" if p.ignored else ""
                facts.append(f"{' or '.join(p.only)} {spec.key} only{ignored}")
            if p.needs:
                facts.append(f"needs {requirement(spec, p.needs)}")
            lines.append(f"    {p.name:<{width}}{escape('; '.join(facts))}")
            lines.append(f"    {'':<{width}}{escape(p.description)}")
    return lines
