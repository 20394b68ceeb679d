"""`{{ moment|when }}`: a date in the course's time zone, human, the exact time in a <time>;
`{{ moment|from_now }}`: 'in 3 days'. `{% load when %}` in a template."""

from __future__ import annotations

from datetime import datetime

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString

from grader.service import jobs
from grader.service.api import course
from grader.service.dates import exact, human, relative

register = template.Library()


@register.filter
def when(moment: datetime | None) -> SafeString | str:
    if moment is None:
        return "-"
    zone = course().spec.zone
    return format_html(
        '<time datetime="{}" title="{}">{}</time>',
        exact(moment, zone),
        exact(moment, zone),
        human(moment, zone),
    )


@register.filter
def from_now(moment: datetime | None) -> str:
    return "" if moment is None else relative(moment, jobs.now())
