"""The text picture of a position and its `view` JSON (HA-7.1: everything is public)."""

from typing import Any

from domain.spacewar_ha.pieces import KIND_NAMES, MEDIC, SIDE_NAMES
from domain.spacewar_ha.position import Position


def render(pos: Position, position: str, result: str = "") -> str:
    """The board, rank `height` on top: pieces as letters (upper case White, lower case
    Black), Bases as `+` (White) and `*` (Black) when empty, `x` once captured; then every
    piece's values, the Bases' pools and the immobilisations."""
    b = pos.board
    board = pos.at()
    lines = []
    for r in range(b.height - 1, -1, -1):
        row = []
        for f in range(b.width):
            s = r * b.width + f
            piece = board.get(s)
            base = pos.base_at(s)
            if piece is not None:
                cell = piece.kind if piece.owner == 0 else piece.kind.lower()
            elif base is not None:
                cell = "x" if base.captured else "+*"[base.owner]
            else:
                cell = "."
            row.append(cell)
        lines.append(f"{r + 1:>2} {' '.join(row)}")
    lines.append("   " + " ".join("abcdefghijklmnop"[: b.width]))
    for p in pos.pieces:
        values = (f"H{p.health} R{p.repair} S{p.supply}" if p.kind == MEDIC
                  else f"H{p.health} A{p.ammo}")  # fmt: skip
        held = " immobilised" if pos.held(p.square) else ""
        if any(r == p.square for _, r in pos.released):
            held += " released this turn"
        lines.append(f"{b.name(p.square)} {p.name}: {values}{held}")
    for x in pos.bases:
        pools = "captured" if x.captured else f"Repair {x.repair} Supply {x.supply}"
        lines.append(f"{b.name(x.square)} {SIDE_NAMES[x.owner]} Base: {pools}")
    status = result or f"{SIDE_NAMES[pos.turn]} to act, turn {pos.number}"
    lines.append(status + (" (the last turn was a pass)" if pos.passed and not result else ""))
    lines.append(position)
    return "\n".join(lines)


def view(pos: Position, position: str, to_act: list[int], result: str | None,
         last: str) -> dict[str, Any]:  # fmt: skip
    b = pos.board
    return {
        "ruleset": "spacewar-ha",
        "position": position,
        "width": b.width,
        "height": b.height,
        "turn": pos.turn,
        "number": pos.number,
        "passed": pos.passed,
        "to_act": to_act,
        "result": result,
        "last": last,
        "pieces": [
            {"square": b.name(p.square), "owner": p.owner, "kind": p.kind,
             "name": KIND_NAMES[p.kind], "health": p.health,
             "ammo": None if p.kind == MEDIC else p.ammo,
             "repair": p.repair if p.kind == MEDIC else None,
             "supply": p.supply if p.kind == MEDIC else None,
             "immobilised": pos.held(p.square)}
            for p in pos.pieces
        ],
        "bases": [{"square": b.name(x.square), "owner": x.owner, "repair": x.repair,
                   "supply": x.supply, "captured": x.captured} for x in pos.bases],
        "holds": [{"tractor": b.name(t), "held": b.name(h)} for t, h in pos.holds],
        # HA-R28: this turn's releases, not to be held again before the turn ends
        "released": [{"tractor": b.name(t), "piece": b.name(r)} for t, r in pos.released],
    }  # fmt: skip
