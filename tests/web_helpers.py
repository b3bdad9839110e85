"""What a seat cannot see at a moment of a game, for the tests that check no such card reaches the page; and a static
file server for a site built by ``durak site`` (the tests and benchmarks/site.py)."""

from __future__ import annotations

from durak_env.engine.cards import CARDS, cards_of, deck


def hidden_cards(game, seat: int) -> set[str]:
    """Names of the cards ``seat`` cannot see: other hands (but what was seen picked up), the stock (but the
    turned card), and the discard where the rules hide it."""
    seen = game.hands[seat] | game.table_mask() | (1 << game.trump_card)
    if game.rules.open_discard:
        seen |= game.discard
    for known in game.known:
        seen |= known
    every = sum(1 << c for c in deck(game.rules.deck_size))
    return {str(CARDS[c]) for c in cards_of(every & ~seen)}


def strings(data) -> list[str]:
    """Every string in a JSON value, and every card name written inside them."""
    out = []
    if isinstance(data, dict):
        for k, v in data.items():
            out += strings(k) + strings(v)
    elif isinstance(data, list):
        for v in data:
            out += strings(v)
    elif isinstance(data, str):
        out.append(data)
    return out


def card_tokens(text: str) -> set[str]:
    """Card names in a text, written as names ("8D") or labels ("8♦")."""
    import re

    symbols = {"♣": "C", "♦": "D", "♥": "H", "♠": "S"}
    found = set(re.findall(r"\b(?:10|[2-9JQKA])[CDHS]\b", text))
    found |= {m[:-1] + symbols[m[-1]] for m in re.findall(r"(?:10|[2-9JQKA])[♣♦♥♠]", text)}
    return found


class FolderServer:
    """A static file server for ``folder`` on a free port of 127.0.0.1, in a thread, as any web host would serve a
    site built by ``durak site``; ``stop()`` ends it (the site's server gone)."""

    def __init__(self, folder):
        import functools
        import threading
        from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

        class Quiet(SimpleHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(folder)))
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(10)
