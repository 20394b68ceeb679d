"""The boardgame reference Dictionary, the given probe helpers and the stubs."""

from __future__ import annotations

import random
from collections.abc import Iterator
from types import ModuleType

import pytest

from tests.support import exercise_modules


@pytest.fixture(scope="module")
def modules() -> Iterator[dict[str, ModuleType]]:
    with exercise_modules("boardgame") as loaded:
        yield loaded


def test_put_get_and_count(modules: dict[str, ModuleType]) -> None:
    dictionary = modules["dictionary"]
    table = dictionary.Dictionary(11)
    assert table.num_items() == 0
    assert table.get("oggbdgggg") is None
    assert table.put(dictionary.Record("oggbdgggg", 3, 2)) in (0, 1)
    assert table.put(dictionary.Record("gggg", 0, 1)) in (0, 1)
    found = table.get("oggbdgggg")
    assert (found.config, found.score, found.level) == ("oggbdgggg", 3, 2)
    assert table.get("ggggbdggo") is None
    assert table.num_items() == 2


def test_duplicate_raises_and_keeps_the_first(modules: dict[str, ModuleType]) -> None:
    dictionary, errors = modules["dictionary"], modules["errors"]
    table = dictionary.Dictionary(5)
    table.put(dictionary.Record("obgdg", 3, 2))
    with pytest.raises(errors.DuplicatedKeyError):
        table.put(dictionary.Record("obgdg", 1, 5))
    assert table.get("obgdg").score == 3
    assert table.num_items() == 1


def test_remove_and_missing_keys(modules: dict[str, ModuleType]) -> None:
    dictionary, errors = modules["dictionary"], modules["errors"]
    table = dictionary.Dictionary(3)
    with pytest.raises(errors.InexistentKeyError):
        table.remove("gggg")
    for index, key in enumerate(["ob", "bo", "og", "go", "dd", "gg", "bb"]):
        table.put(dictionary.Record(key, index % 4, index))
    table.remove("og")
    with pytest.raises(errors.InexistentKeyError):
        table.remove("og")
    assert table.get("og") is None
    assert [table.get(key).level for key in ["ob", "bo", "go", "dd", "gg", "bb"]] == [0, 1, 3, 4, 5, 6]
    assert table.num_items() == 6
    table.put(dictionary.Record("og", 1, 9))
    assert table.get("og").level == 9


def test_put_reports_collisions_by_bucket(modules: dict[str, ModuleType]) -> None:
    dictionary = modules["dictionary"]
    single = dictionary.Dictionary(1)
    assert [single.put(dictionary.Record(key, 1, 0)) for key in ["a", "b", "c", "d"]] == [0, 1, 1, 1]
    table = dictionary.Dictionary(7)
    occupied: set[int] = set()
    for key in ["ogg", "bgg", "dgg", "ggo", "ggb", "gog", "gbg", "ddd", "obo", "bob"]:
        chain = table.bucket(key)
        bucket = next(index for index, other in enumerate(table.buckets) if other is chain)
        assert table.put(dictionary.Record(key, 0, 0)) == (1 if bucket in occupied else 0)
        occupied.add(bucket)


def test_interleavings_agree_with_a_plain_dict(modules: dict[str, ModuleType]) -> None:
    dictionary, errors = modules["dictionary"], modules["errors"]
    rng = random.Random(7)
    keys = ["".join(rng.choice("obdg") for _ in range(rng.randint(1, 9))) for _ in range(40)]
    for size in (1, 2, 7, 9887):
        table, plain = dictionary.Dictionary(size), {}
        for _ in range(600):
            key, roll = rng.choice(keys), rng.random()
            if roll < 0.45:
                if key in plain:
                    with pytest.raises(errors.DuplicatedKeyError):
                        table.put(dictionary.Record(key, 1, 1))
                else:
                    plain[key] = (rng.randrange(4), rng.randrange(9))
                    table.put(dictionary.Record(key, *plain[key]))
            elif roll < 0.75:
                if key in plain:
                    del plain[key]
                    table.remove(key)
                else:
                    with pytest.raises(errors.InexistentKeyError):
                        table.remove(key)
            else:
                found = table.get(key)
                assert (None if found is None else (found.score, found.level)) == plain.get(key)
            assert table.num_items() == len(plain)


def test_course_collision_test(modules: dict[str, ModuleType]) -> None:
    probe = modules["probe"]
    keys = probe.course_keys()
    assert len(set(keys)) == 10_000
    assert keys == probe.course_keys()
    assert probe.collision_test() == [True, 10_000]
    # a uniform hash gives about 10000 - 9887 * (1 - e^(-10000/9887)) ~ 3709 collisions
    assert 3_500 < probe.count_collisions(9887) < 4_000


def test_probe_helpers(modules: dict[str, ModuleType]) -> None:
    probe, dictionary, errors = modules["probe"], modules["dictionary"], modules["errors"]
    table = dictionary.Dictionary(3)
    assert probe.put(table, "og", 2, 4) is True
    assert probe.lookup(table, "og") == ["og", 2, 4]
    assert probe.lookup(table, "go") is None
    with pytest.raises(errors.DuplicatedKeyError):
        probe.put(table, "og", 1, 1)
    assert probe.single_bucket_answers(["a", "b", "c"]) == [0, 1, 1]


def test_stubs_raise_not_implemented() -> None:
    with exercise_modules("boardgame", source="exercises") as stubs:
        with pytest.raises(NotImplementedError):
            stubs["dictionary"].Dictionary(3)
        with pytest.raises(NotImplementedError):
            stubs["dictionary"].Record("g", 1, 0)
        with pytest.raises(NotImplementedError):
            stubs["board"].Board(3, 3, 3, 4, ["ggg", "gdg", "ggg"])
