"""Scope: whose memories the agent frameworks' tools serve, fixed once."""

from __future__ import annotations

import unittest
from types import SimpleNamespace
from typing import Any

from umo_client import VERB_WORDS, Scope, ValidationError


class ScopeTest(unittest.TestCase):
    def test_an_empty_scope_is_refused(self) -> None:
        with self.assertRaises(ValidationError) as refused:
            Scope()
        self.assertEqual(refused.exception.status, 422)
        self.assertEqual(refused.exception.detail, "invalid scope: a scope needs a user_id, an agent_id or a session_id")

    def test_a_scope_field_must_be_text(self) -> None:
        bad: Any = 7
        with self.assertRaises(ValidationError) as refused:
            Scope(user_id=bad)
        self.assertEqual(refused.exception.detail, "invalid scope: user_id: must be a string")

    def test_fields_are_the_ones_set(self) -> None:
        self.assertEqual(Scope(user_id="ana", session_id="s1").fields(), {"user_id": "ana", "session_id": "s1"})

    def test_holds_a_memory_whose_fields_match_every_field_set(self) -> None:
        scope = Scope(user_id="ana")
        memory = SimpleNamespace(user_id="ana", agent_id="bot", session_id=None)
        self.assertTrue(scope.holds(memory))
        self.assertFalse(Scope(user_id="ana", agent_id="other").holds(memory))
        self.assertFalse(Scope(user_id="bo").holds(memory))

    def test_each_verb_has_its_words(self) -> None:
        self.assertTrue(all(VERB_WORDS[verb] for verb in ("remember", "search", "answer", "forget")))


if __name__ == "__main__":
    unittest.main()
