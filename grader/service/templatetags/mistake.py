"""`{% wrong "login" %}` in a form's field: marks it invalid and described by the mistake's
message when the form is shown again for a mistake in that field (the context's `invalid`).
`{% load mistake %}` in a template."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.safestring import SafeString

register = template.Library()

INVALID = SafeString(' aria-invalid="true" aria-describedby="problem"')


@register.simple_tag(takes_context=True)
def wrong(context: Any, field: str) -> SafeString | str:
    return INVALID if context.get("invalid") == field else ""
