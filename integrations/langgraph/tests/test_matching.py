"""LangGraph's filters as the store applies them to values (no server)."""

from __future__ import annotations

import unittest

from umo_langgraph.matching import admits


class FilterTest(unittest.TestCase):
    def test_a_dotted_name_reaches_into_nested_values(self) -> None:
        value = {"user": {"access-level": "admin", "team": {"name": "ops"}}, "n": 3}
        self.assertTrue(admits({"user.access-level": "admin"}, value))
        self.assertTrue(admits({"user.team.name": {"$eq": "ops"}}, value))
        self.assertFalse(admits({"user.access-level": "viewer"}, value))
        self.assertFalse(admits({"user.missing.deeper": "x"}, value))
        self.assertTrue(admits({"user.missing": None}, value))
        self.assertFalse(admits({"n.deeper": 3}, value))

    def test_a_field_whose_name_holds_a_dot_is_read_first(self) -> None:
        value = {"a.b": 1, "a": {"b": 2}}
        self.assertTrue(admits({"a.b": 1}, value))
        self.assertFalse(admits({"a.b": 2}, value))


if __name__ == "__main__":
    unittest.main()
