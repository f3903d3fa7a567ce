"""Any item value becomes a text UMO keeps as it is, and that text gives the value back."""

from __future__ import annotations

import unittest
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from umo_langgraph.values import decode, encode, fits_metadata, normal_text

# Texts with what UMO's normal form changes: runs of spaces, other spaces, tabs, line breaks,
# control characters, zero-width spaces, combining marks.
tricky = st.lists(
    st.sampled_from(
        list("ab é.")
        + ["  ", "\t", "\n", "\r\n", "\u00a0", "\u200b", "\u0301", "\x85", "\x07", "\u3000"]
        # a lone surrogate, a character Python's Unicode lacks, Hangul jamo that NFC composes
        + ["\ud800", "\U00010efd", "\u1100\u1161", "\u212b"]
    ),
    max_size=12,
).map("".join)
texts = st.one_of(st.text(max_size=20), tricky)
json_leaves = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False), texts)
json_values = st.recursive(
    json_leaves,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(texts, inner, max_size=3)),
    max_leaves=8,
)
values = st.dictionaries(texts, json_values, max_size=4)


class ValuesTest(unittest.TestCase):
    @settings(max_examples=600, deadline=None)
    @given(values)
    def test_every_value_is_kept_text_that_gives_it_back(self, value: dict[str, Any]) -> None:
        text, field = encode(value)
        self.assertEqual(normal_text(text), text)
        self.assertTrue(field is None or fits_metadata(field))  # the field's name is kept in metadata
        self.assertEqual(decode(text, field), value)

    def test_one_normal_text_field_is_the_text_itself(self) -> None:
        self.assertEqual(encode({"content": "Ana is vegetarian"}), ("Ana is vegetarian", "content"))
        self.assertEqual(encode({"memory": "first line\nsecond line"}), ("first line\nsecond line", "memory"))

    def test_a_text_the_normal_form_would_change_is_json(self) -> None:
        for text in ("two  spaces", " edge", "line\r\nbreak", "", "\u200b", "e\u0301"):
            encoded, field = encode({"content": text})
            self.assertIsNone(field, text)
            self.assertEqual(decode(encoded, field), {"content": text})

    def test_normal_text_is_umos_normal_form(self) -> None:
        self.assertEqual(normal_text("  a \t b  \r\n\n\n\n c\u200b\x07 "), "a b\n\nc")
        self.assertEqual(normal_text("e\u0301"), "\u00e9")

    def test_only_what_the_server_could_change_is_escaped(self) -> None:
        text, field = encode({"city": "Zürich  (Schweiz)", "n": 1})
        self.assertIsNone(field)
        self.assertEqual(text, '{"city":"Zürich\\u0020\\u0020(Schweiz)","n":1}')
        self.assertEqual(encode({"note": "a\ud800b", "n": 1})[0], '{"note":"a\\ud800b","n":1}')


if __name__ == "__main__":
    unittest.main()
