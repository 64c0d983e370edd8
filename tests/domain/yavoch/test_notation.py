"""Position, piece and action notation (Y-1.12 to Y-1.14, Y-R66, Y-R69)."""

import pytest

from domain.yavoch.field import POSITIONS, Position
from domain.yavoch.notation import (
    DEFENSIVE_WEAPONS,
    OFFENSIVE_WEAPONS,
    Action,
    Attack,
    BattleResult,
    Detonation,
    EndTurn,
    Kind,
    Move,
    NoResponse,
    Piece,
    Response,
    Shot,
    Transfer,
    WeaponUse,
    describe_position,
    format_action,
    format_piece,
    format_position,
    parse_action,
    parse_piece,
    parse_position,
)


def pos(text: str) -> Position:
    return parse_position(text)


def test_position_notation_example() -> None:
    """Y-1.12: `243` = level 2, x = 4, y = 3; human form `(2,4,3)`."""
    # Y-1.12
    assert parse_position("243") == Position(2, 4, 3)
    assert format_position(Position(2, 4, 3)) == "243"
    assert describe_position(Position(2, 4, 3)) == "(2,4,3)"
    assert parse_position("(2,4,3)") == parse_position("( 2, 4 ,3 )") == Position(2, 4, 3)


def test_position_round_trip_over_all_125() -> None:
    """Y-1.12: parse(format(p)) == p and parse(describe(p)) == p for every position."""
    # Y-1.12
    assert {format_position(p) for p in POSITIONS} == {
        f"{lv}{x}{y}" for lv in range(1, 6) for x in range(1, 6) for y in range(1, 6)
    }
    for p in POSITIONS:
        assert parse_position(format_position(p)) == p
        assert parse_position(describe_position(p)) == p


@pytest.mark.parametrize(
    "text",
    ["", "24", "2433", "043", "643", "203", "260", "a43", " 243", "243\n", "2 43", "(2,4)",
     "(2,4,6)", "(0,1,1)", "(2;4;3)", "２４３"],
)  # fmt: skip
def test_bad_positions_name_the_clause(text: str) -> None:
    """Y-1.12: anything but three digits 1..5 (or the human form) is refused, citing Y-1.12."""
    # Y-1.12
    with pytest.raises(ValueError, match=r"^Y-1\.12: "):
        parse_position(text)


def test_piece_letters_and_owner_prefix() -> None:
    """Y-1.13: C N S A T G M E, optional owner prefix 1/2 (`2S`)."""
    # Y-1.13
    assert [k.value for k in Kind] == ["C", "N", "S", "A", "T", "G", "M", "E"]
    assert parse_piece("2S") == Piece(Kind.SQUAM, 2)
    assert parse_piece("T") == Piece(Kind.TRYCH)
    for kind in Kind:
        for owner in (None, 1, 2):
            piece = Piece(kind, owner)
            assert parse_piece(format_piece(piece)) == piece
    for bad in ("", "X", "s", "3S", "0C", "SS", "2", "S2"):
        with pytest.raises(ValueError, match=r"^Y-1\.13: "):
            parse_piece(bad)
    with pytest.raises(ValueError, match=r"^Y-1\.13: "):
        Piece(Kind.SQUAM, 3)


S, A, N, C, T, G = (Piece(k) for k in (Kind.SQUAM, Kind.ARCHID, Kind.NEORNITH, Kind.COMMAND,
                                       Kind.TRYCH, Kind.GATE))  # fmt: skip

# Y-1.14 table, Y-R66 and Y-R69: every example the ruling writes, with its record.
EXAMPLES: list[tuple[str, Action]] = [
    ("S112-134", Move(S, pos("112"), pos("134"))),  # Y-1.14 move
    ("A214-254/M", Move(A, pos("214"), pos("254"), mine=True)),  # Y-1.14 mine
    ("N233x332{d=4,W}", Attack(N, pos("233"), pos("332"), BattleResult(4, won=True))),  # Y-1.14
    ("A214-254>422", Move(A, pos("214"), pos("254"), exit=pos("422"))),  # Y-1.14 teleport
    ("G125-135", Move(G, pos("125"), pos("135"))),  # Y-1.14 gate move
    ("T232!", Detonation(T, pos("232"))),  # Y-1.14 detonation
    ("C111*155", Shot(C, pos("111"), pos("155"))),  # Y-1.14 HEP CAT
    ("E112>122", Transfer(pos("112"), pos("122"))),  # Y-1.14 transfer; A7
    ("E222>232", Transfer(pos("222"), pos("232"))),  # A7
    ("END", EndTurn()),  # Y-1.14 end of turn
    ("W:TB:S112:134>144", WeaponUse("TB", S, pos("112"), "134>144")),  # Y-1.14 [FULL]
    ("R:DF:A344", Response("DF", A, pos("344"))),  # Y-1.14 [FULL]
    ("R:none", NoResponse()),  # Y-1.14 [FULL]
    ("S112x134/M", Attack(S, pos("112"), pos("134"), mine=True)),  # Y-R69
    ("A214-254>422/M", Move(A, pos("214"), pos("254"), exit=pos("422"), mine=True)),  # Y-R69
]


@pytest.mark.parametrize(("text", "action"), EXAMPLES)
def test_worked_examples_parse_and_format(text: str, action: Action) -> None:
    """Y-1.14 / Y-R69: each example of the ruling parses to its record and is canonical."""
    # Y-1.14, Y-R69
    assert parse_action(text) == action
    assert format_action(action) == text


def test_battle_results() -> None:
    """Y-1.14: W attacker won, L lost, auto no roll; Y-R66: a landing on an enemy Command
    ship's gate is written as a battle when rolled, as a move otherwise."""
    # Y-1.14
    assert parse_action("N233x332{d=2,L}") == Attack(
        N, pos("233"), pos("332"), BattleResult(2, won=False)
    )
    assert parse_action("C333x344{auto,W}") == Attack(
        C, pos("333"), pos("344"), BattleResult(None, won=True)
    )
    assert parse_action("S112x134{d=7,W}/M").destination == pos("134")  # type: ignore[union-attr]
    # Y-R66
    assert isinstance(parse_action("S222x233{d=6,L}"), Attack)
    assert isinstance(parse_action("S222-233"), Move)
    # Y-2.6: every face of the die of fate
    for roll in range(10):
        for won in (True, False):
            text = f"A311x315{{d={roll},{'W' if won else 'L'}}}"
            assert format_action(parse_action(text)) == text


def test_white_space_around_a_log_line_is_ignored() -> None:
    """Y-1.14: one action per log line; the line's surrounding white space is not part of it."""
    # Y-1.14
    assert parse_action("  S112-134\n") == parse_action("S112-134")


def test_owner_prefix_in_actions() -> None:
    """Y-1.13: the owner prefix MAY be added wherever a piece letter is written."""
    # Y-1.13, Y-1.14
    two_s = Piece(Kind.SQUAM, 2)
    assert parse_action("2S112-134") == Move(two_s, pos("112"), pos("134"))
    assert parse_action("W:TB:2S112:134>144") == WeaponUse("TB", two_s, pos("112"), "134>144")
    assert parse_action("R:SD:1T344") == Response("SD", Piece(Kind.TRYCH, 1), pos("344"))
    assert format_action(Detonation(Piece(Kind.TRYCH, 1), pos("232"))) == "1T232!"


def _generated_actions() -> list[Action]:
    """Every action form, every letter and owner it allows, over positions spread on the field."""
    out: list[Action] = [EndTurn(), NoResponse()]
    for i, p in enumerate(POSITIONS):
        q = POSITIONS[(i * 37 + 11) % 125]
        r = POSITIONS[(i * 53 + 7) % 125]
        owner = (None, 1, 2)[i % 3]
        result = (None, BattleResult(i % 10, won=i % 2 == 0), BattleResult(None, won=True))[i % 3]
        out.append(Transfer(p, q))
        out.append(Detonation(Piece(Kind.TRYCH, owner), p))
        out.append(Shot(Piece(Kind.COMMAND, owner), p, q))
        for kind in (Kind.COMMAND, Kind.NEORNITH, Kind.SQUAM, Kind.ARCHID, Kind.TRYCH, Kind.GATE):
            piece = Piece(kind, owner)
            out.append(Move(piece, p, q))
            if kind not in (Kind.COMMAND, Kind.GATE):
                out.append(Move(piece, p, q, exit=r, mine=kind is not Kind.TRYCH))
                out.append(Move(piece, p, q, exit=r))
                out.append(Response(DEFENSIVE_WEAPONS[i % 2], piece, p))
                code = OFFENSIVE_WEAPONS[i % len(OFFENSIVE_WEAPONS)]
                out.append(WeaponUse(code, piece, p, None if i % 2 else format_position(q)))
            if kind not in (Kind.TRYCH, Kind.GATE):
                out.append(Move(piece, p, q, mine=True))
                out.append(Attack(piece, p, q, result, mine=i % 2 == 1))
    return out


def test_round_trip_over_generated_actions() -> None:
    """Y-1.14: parse(format(a)) == a, and format is canonical, for every generated action."""
    # Y-1.14, Y-1.13, Y-R69
    actions = _generated_actions()
    assert len(actions) > 4000
    for action in actions:
        text = format_action(action)
        assert parse_action(text) == action
        assert format_action(parse_action(text)) == text
    assert len({format_action(a) for a in actions}) == len(set(actions))


@pytest.mark.parametrize(
    ("text", "clause"),
    [
        ("", r"Y-1\.14"),
        ("S112_134", r"Y-1\.14"),
        ("s112-134", r"Y-1\.14"),
        ("X112-134", r"Y-1\.14"),
        ("S112-134/M>422", r"Y-1\.14"),  # Y-R69: /M is the last suffix
        ("S112x134/M{d=4,W}", r"Y-1\.14"),  # Y-R69
        ("S112-13", r"Y-1\.14"),
        ("S112-134 extra", r"Y-1\.14"),
        ("N233x332{d=10,W}", r"Y-1\.14"),
        ("N233x332{d=4}", r"Y-1\.14"),
        ("N233x332{W}", r"Y-1\.14"),
        ("N233x332{d=4,X}", r"Y-1\.14"),
        ("end", r"Y-1\.14"),
        ("R:None", r"Y-1\.14"),
        ("S612-134", r"Y-1\.12"),
        ("S112-160", r"Y-1\.12"),
        ("A214-254>622", r"Y-1\.12"),
        ("E112>102", r"Y-1\.12"),
        ("3S112-134", r"Y-1\.14"),
        ("M112-134", r"Y-1\.14: only ships and gates move"),
        ("E112-134", r"Y-1\.14: only ships and gates move"),
        ("T112x134", r"Y-5\.20"),
        ("G125x135", r"Y-5\.20"),
        ("C111-122>233", r"Y-5\.5"),
        ("G125-135>144", r"Y-5\.5"),
        ("T112-122/M", r"Y-5\.40"),
        ("G125-135/M", r"Y-5\.40"),
        ("S232!", r"Y-5\.30"),
        ("S111*155", r"Y-5\.60"),
        ("C333x344{auto,L}", r"Y-5\.22"),
        ("W:XX:S112", r"Y-2\.8"),
        ("W:DF:S112", r"Y-2\.8"),  # defensive codes are answered with R:
        ("W:TB:C112:134>144", r"Y-5\.71"),
        ("W:TB:S112:", r"Y-1\.14"),
        ("W:TB:S112:134 144", r"Y-1\.14"),
        ("R:TB:A344", r"Y-2\.8"),
        ("R:DF:C344", r"Y-5\.90"),
        ("R:DF:G344", r"Y-5\.90"),
    ],
)
def test_bad_actions_name_the_clause(text: str, clause: str) -> None:
    """Y-1.14: malformed or impossible actions are refused with the clause that forbids them."""
    # Y-1.14
    with pytest.raises(ValueError, match=f"^{clause}"):
        parse_action(text)


def test_records_refuse_impossible_letters() -> None:
    """Y-1.14 records: the constructors refuse what the notation could not be written as."""
    # Y-5.20, Y-5.5, Y-5.40, Y-2.6
    with pytest.raises(ValueError, match=r"^Y-5\.20"):
        Attack(T, pos("111"), pos("112"))
    with pytest.raises(ValueError, match=r"^Y-5\.5"):
        Move(C, pos("111"), pos("112"), exit=pos("113"))
    with pytest.raises(ValueError, match=r"^Y-5\.40"):
        Move(T, pos("111"), pos("112"), mine=True)
    with pytest.raises(ValueError, match=r"^Y-2\.6"):
        BattleResult(10, won=True)
