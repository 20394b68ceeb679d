"""What a test process sends back is bounded in the parent, whatever the test wrote on its pipe:
the exception's type name, message, traceback and origin are cut before any report sees them."""

from __future__ import annotations

import json
from typing import Any

from grader.run import received
from grader.run.box.protocol import MESSAGE_CAP, ORIGIN_CAP, RAISES_CAP, TRACEBACK_CAP, raised


def _raised(**fields: Any) -> dict[str, Any]:
    return {"raises": "ValueError", "message": "m", "traceback": "t", "ni": False, "import": False, **fields}


def test_a_huge_exception_type_name_is_cut_in_the_parent() -> None:
    sent = json.dumps(
        {
            "steps": [
                _raised(
                    raises="E" * 1_000_000,
                    message="x" * 1_000_000,
                    traceback="T" * 1_000_000 + "end",
                    origin="o" * 10_000,
                )
            ]
        }
    )
    data, problem = received.decode_result(sent.encode())
    assert problem is None
    (outcome,) = received.step_outcomes(data)
    error = raised(outcome)
    assert error is not None
    assert error["raises"] == "E" * RAISES_CAP + "..."
    assert len(error["message"]) <= MESSAGE_CAP + 3
    assert len(error["traceback"]) <= TRACEBACK_CAP + 3 and error["traceback"].endswith("end")
    assert len(error.get("origin", "")) <= ORIGIN_CAP + 3


def test_a_program_outcome_is_cut_as_well() -> None:
    outcome = received.driver_outcome({"exit": 1, "error": _raised(raises="E" * 5000)})
    assert outcome["error"] is not None
    assert len(outcome["error"]["raises"]) == RAISES_CAP + 3


def test_short_texts_pass_unchanged() -> None:
    (outcome,) = received.step_outcomes({"steps": [_raised()]})
    assert outcome == _raised()
