// The modules' translations: Django's JavaScriptCatalog (/web/jsi18n, loaded by base.html before
// any module) defines gettext and ngettext in the page's language. A string is marked where it
// is written, as a literal, so that `make messages` finds it:
//   _("Connected")                          a plain string
//   fmt(_("Seat %(n)s"), { n: 3 })          a string with values (named, Django's style)
//   fmt(ngettext("%(n)s card", "%(n)s cards", n), { n })
const g = globalThis;

export function _(text) {
  return typeof g.gettext === "function" ? g.gettext(text) : text;
}

export function ngettext(singular, plural, count) {
  return typeof g.ngettext === "function" ? g.ngettext(singular, plural, count) : count === 1 ? singular : plural;
}

export function fmt(text, values) {
  return text.replace(/%\((\w+)\)s/g, (whole, name) => (name in values ? String(values[name]) : whole));
}

export const lang = document.documentElement.lang || "en";

// The API's status and format values, as words (an unknown value is shown as it is).
const WORDS = {
  registration: _("open for registration"), running: _("running"), finished: _("finished"), waiting: _("waiting"),
  active: _("active"), withdrawn: _("withdrawn"), seated: _("seated"), playing: _("playing"), pending: _("pending"),
  swiss: _("Swiss"), random: _("random seating"), rotation: _("balanced rotation"),
};

export function word(value) {
  return WORDS[value] || value;
}
