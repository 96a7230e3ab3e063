"""The table page in Spanish (the browser asks for es): no English string on it, the server's
refusal of an illegal card in Spanish too. Screenshot: artifacts/screenshots/table-es.png."""

from __future__ import annotations

import re
from pathlib import Path

from tests.web.e2e.conftest import ROOT, pytestmark, screenshot  # noqa: F401 - the skip marker applies here

# What the page shows to a reader and to a screen reader.
_SHOWN = """() => {
  const parts = [document.title, document.body.innerText];
  for (const el of document.querySelectorAll('[aria-label], [title], [placeholder]')) {
    for (const name of ['aria-label', 'title', 'placeholder']) parts.push(el.getAttribute(name) || '');
  }
  return parts.join('\\n');
}"""


def _english_fragments() -> set[str]:
    """Every English text of the catalogs that Spanish says differently, cut at its placeholders:
    none may be left on a Spanish page."""
    fragments = set()
    for name in ("django.po", "djangojs.po"):
        text = (ROOT / "locale" / "es" / "LC_MESSAGES" / name).read_text(encoding="utf-8")
        entry = r'\nmsgid ((?:".*"\n)+)(?:msgid_plural (?:".*"\n)+)?msgstr(?:\[0\])? ((?:".*"\n)+)'
        for msgid, msgstr in re.findall(entry, text):
            english = "".join(re.findall(r'"(.*)"', msgid)).replace('\\"', '"')
            spanish = "".join(re.findall(r'"(.*)"', msgstr)).replace('\\"', '"')
            if not english or english == spanish:
                continue
            for part in re.split(r"%\(\w+\)s|\{[^}]*\}|<[^>]+>", english):
                part = part.strip(" .,:;·()")
                if len(part) >= 6 and re.search(r"[a-z]{3}", part) and part not in spanish:
                    fragments.add(part)
    return fragments


def _english_on(page, fragments) -> list[str]:
    shown = page.evaluate(_SHOWN).replace("Hearts League", "")  # the site's name is the same in every language
    return sorted(f for f in fragments if re.search(rf"(?<![\w]){re.escape(f)}(?![\w])", shown))


SPANISH_REFUSALS = (
    "Debes seguir el palo",
    "La salida de la primera baza",
    "Ni corazones ni la Q♠",
    "Aún no se han roto los corazones",
    "Aún no es tu turno",
    "Ahora no",
)


def test_the_spanish_table_page_shows_no_english_string(browser, live_server_url):
    context = browser.new_context(
        base_url=live_server_url["url"],
        viewport={"width": 1100, "height": 900},
        locale="es-ES",
        extra_http_headers={"Accept-Language": "es-ES,es;q=0.9"},
    )
    context.set_default_timeout(15000)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    fragments = _english_fragments()
    assert len(fragments) > 100, "the catalogs were read"

    page.goto("/")
    assert page.locator("html").get_attribute("lang") == "es"
    page.get_by_role("button", name="Jugar contra la CPU").click()
    page.wait_for_url(re.compile(r"/tables/\d+/$"))
    page.wait_for_function("document.querySelector('#table').dataset.canPass === 'true'")
    assert (
        page.locator("#hand button.card")
        .first.get_attribute("aria-label")
        .endswith((" de tréboles", " de diamantes", " de picas", " de corazones"))
    )
    assert _english_on(page, fragments) == []

    for index in range(3):
        page.locator("#hand button.card").nth(index).click()
    assert page.locator("#pass-button").inner_text().startswith("Pasar ")
    page.locator("#pass-button").click()
    page.wait_for_function("document.querySelector('#table').dataset.phase === 'playing'")

    refused = None
    for _ in range(13):
        page.wait_for_function("""() => { const t = document.querySelector('#table');
            return t.dataset.phase !== 'playing'
              || (t.dataset.myTurn === 'true' && t.dataset.pending === 'false'); }""")
        if page.locator("#table").get_attribute("data-phase") != "playing":
            break
        if page.locator("#hand button.card.illegal").count():
            page.locator("#hand button.card.illegal").first.click()
            page.wait_for_function("document.querySelector('#table').dataset.lastError !== undefined")
            refused = page.locator("#error").inner_text()
            break
        seq = int(page.locator("#table").get_attribute("data-seq"))
        page.locator("#hand button.card.legal").first.click()
        page.wait_for_function("(seq) => Number(document.querySelector('#table').dataset.seq) > seq", arg=seq)
    if refused is not None:  # some turn had a card that could not be played (nearly always)
        assert refused.startswith(SPANISH_REFUSALS), refused
    assert _english_on(page, fragments) == []
    shot = screenshot(page, "table-es")
    assert Path(shot).exists()

    page.locator("a.rules-link").click()
    page.wait_for_url(re.compile(r"/tables/\d+/rules/$"))
    assert "Disparar a la luna: los demás se llevan 26 cada uno." in page.locator("#rules").inner_text()
    assert _english_on(page, fragments) == []
    assert not errors, errors
    context.close()
