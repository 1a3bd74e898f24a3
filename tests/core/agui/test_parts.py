"""core/agui/parts.py: the joined text of a status message and the CUSTOM events of data and file parts."""

from __future__ import annotations

from gateway.core.agui.parts import custom_part, joined_text


def test_joined_text_keeps_non_empty_text_parts_in_order() -> None:
    assert joined_text([{"text": "a"}, {"data": {}}, {"text": ""}, {"text": "b"}, "junk"]) == "a\nb"
    assert joined_text(None) == ""


def test_a_data_part_names_its_owner_and_media_type() -> None:
    part = {"data": {"x": 1}, "metadata": {"mimeType": "application/json"}}
    assert custom_part(part, {"messageId": "m1"}) == {"type": "CUSTOM", "name": "a2a.data", "value": {
        "data": {"x": 1}, "messageId": "m1", "mediaType": "application/json"}}


def test_a_file_part_gives_its_size_not_its_bytes() -> None:
    part = {"raw": "AAAA", "mediaType": "image/png", "filename": "a.png"}
    assert custom_part(part, {"artifactId": "a1"}) == {"type": "CUSTOM", "name": "a2a.file", "value": {
        "mediaType": "image/png", "filename": "a.png", "size": 3, "artifactId": "a1"}}
    assert custom_part({"url": "https://x/y"}, {})["value"] == {"url": "https://x/y"}
