"""A multipart body read whole first (it is at most MAX_UPLOAD_BYTES), so that a part Django's
parser would drop without a word, one whose headers are not UTF-8 (a file name in another
encoding), is noticed: the upload is then refused saying so, not as "no file"."""

from __future__ import annotations

import io
from typing import Any

from django.core.files.uploadhandler import FileUploadHandler
from django.http.multipartparser import MultiPartParser

from grader.service.setup import MAX_UPLOAD_BYTES

NOT_UTF8 = "grader_headers_not_utf8"  # the request's attribute: a part's headers are not UTF-8


class HeadersChecked(FileUploadHandler):
    """The first upload handler: checks every part's headers, then lets the others parse."""

    def handle_raw_input(
        self, input_data: Any, META: Any, content_length: int, boundary: bytes, encoding: str | None = None
    ) -> Any:
        if self.request is None or not 0 < content_length <= MAX_UPLOAD_BYTES:
            return None  # too large: refused by its size (api.upload_files)
        data = input_data.read(content_length)
        heads = [part.split(b"\r\n\r\n", 1)[0] for part in data.split(b"--" + boundary)[1:]]
        setattr(self.request, NOT_UTF8, not all(is_utf8(head) for head in heads))
        others = [handler for handler in self.request.upload_handlers if handler is not self]
        return MultiPartParser(META, io.BytesIO(data), others, encoding).parse()

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes:
        return raw_data

    def file_complete(self, file_size: int) -> None:
        return None


def is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
