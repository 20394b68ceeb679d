"""Dates as the pages show them: in the course's time zone, one human format, no seconds.

>>> from datetime import UTC, datetime
>>> paris = ZoneInfo("Europe/Paris")
>>> due = datetime(2026, 12, 4, 22, 59, 30, 123456, tzinfo=UTC)
>>> human(due, paris)
'Fri 4 Dec 2026, 23:59 CET'
>>> exact(due, paris)
'2026-12-04T23:59:30+01:00'
>>> relative(due, datetime(2026, 12, 1, 20, 0, tzinfo=UTC))
'in 3 days'
>>> relative(datetime(2026, 12, 1, 19, 0, tzinfo=UTC), datetime(2026, 12, 1, 20, 0, tzinfo=UTC))
'1 hour ago'
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

UNITS = (
    ("year", 365 * 86400),
    ("month", 30 * 86400),
    ("week", 7 * 86400),
    ("day", 86400),
    ("hour", 3600),
    ("minute", 60),
)


def zone_problem(name: str) -> str | None:
    """Why `name` is not an IANA time zone name zoneinfo knows (None: it is one)."""
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return "not a time zone name zoneinfo knows (an IANA name such as Europe/Paris or UTC)"
    return None


def human(moment: datetime, zone: ZoneInfo) -> str:
    """'Fri 4 Dec 2026, 23:59 CET': the same in every locale (no strftime names)."""
    local = moment.astimezone(zone)
    day = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")[local.weekday()]
    month = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")[
        local.month - 1
    ]
    return f"{day} {local.day} {month} {local.year}, {local:%H:%M} {local.tzname()}"


def exact(moment: datetime, zone: ZoneInfo) -> str:
    """ISO 8601 to the second, in `zone`."""
    return moment.astimezone(zone).isoformat(timespec="seconds")


def relative(moment: datetime, now: datetime) -> str:
    """'in 3 days', '2 hours ago', 'now' (within a minute): the largest whole unit."""
    seconds = (moment - now).total_seconds()
    for unit, size in UNITS:
        count = int(abs(seconds) // size)
        if count:
            amount = f"{count} {unit}{'' if count == 1 else 's'}"
            return f"in {amount}" if seconds > 0 else f"{amount} ago"
    return "now"
