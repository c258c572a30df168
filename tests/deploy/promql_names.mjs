// The series selectors of a PromQL expression: which metric names (and label matchers) a
// dashboard panel or a rule reads, so a test can check each against supportd's /metrics.
// A small scanner, not a full parser: it skips strings, label matchers ({...}), ranges and
// subqueries ([...]), numbers and durations, comments, function and aggregation names (an
// identifier followed by "("), the label lists of by/without/on/ignoring/group_left/group_right,
// the keywords, and an aggregation's name before its by/without; every identifier left is a
// metric name. Grafana's variables ($name, ${name}, [[name]]) are blanked first.

// Words that are operators or modifiers, never metric names (PromQL keywords are
// case-insensitive).
const keywords = new Set(['and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan']);
// Modifiers followed by a parenthesised list of label names.
const labelLists = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right']);

const identifierStart = /[A-Za-z_:]/;
const identifierPart = /[A-Za-z0-9_:]/;

// Index just past the quote that closes the string opened at `start`.
function skipString(text, start) {
  const quote = text[start];
  let i = start + 1;
  while (i < text.length && text[i] !== quote) i += (text[i] === '\\' && quote !== '`') ? 2 : 1;
  if (i >= text.length) throw new Error(`unterminated string at ${start} in: ${text}`);
  return i + 1;
}

// Index just past the bracket that closes the one at `start` ("{", "[" or "("), strings skipped.
function skipGroup(text, start) {
  const open = text[start];
  const close = { '{': '}', '[': ']', '(': ')' }[open];
  let depth = 0;
  for (let i = start; i < text.length;) {
    const c = text[i];
    if (c === '"' || c === "'" || c === '`') { i = skipString(text, i); continue; }
    if (c === open) depth += 1;
    if (c === close && --depth === 0) return i + 1;
    i += 1;
  }
  throw new Error(`unbalanced "${open}" at ${start} in: ${text}`);
}

// The label matchers inside "{...}": [{label, op, value}].
function parseMatchers(body, text) {
  const matchers = [];
  const re = /\s*([A-Za-z_][A-Za-z0-9_]*)\s*(=~|!~|!=|=)\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`)\s*(,|$)/y;
  let i = 0;
  while (i < body.length && body.slice(i).trim() !== '') {
    re.lastIndex = i;
    const m = re.exec(body);
    if (!m) throw new Error(`cannot read the label matchers {${body}} in: ${text}`);
    matchers.push({ label: m[1], op: m[2], value: m[3].slice(1, -1) });
    i = re.lastIndex;
  }
  return matchers;
}

// Blanks Grafana's template variables so that what is left is PromQL.
export function withoutGrafanaVariables(expr) {
  return expr.replace(/\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*|\[\[[A-Za-z_][A-Za-z0-9_]*\]\]/g, '1m');
}

// Every vector selector of `expr`: [{metric, matchers}] in order of appearance; `metric` is
// the name before the braces, or the value of a __name__="..." matcher when there is none.
// Throws on text it cannot read (unbalanced brackets, unterminated strings, bad matchers).
export function selectors(expr) {
  const text = withoutGrafanaVariables(expr);
  const found = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"' || c === "'" || c === '`') {
      i = skipString(text, i);
    } else if (c === '#') {
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end;
    } else if (c === '[') {
      i = skipGroup(text, i);
    } else if (c === '{') {  // a selector without a name before it
      const end = skipGroup(text, i);
      const matchers = parseMatchers(text.slice(i + 1, end - 1), text);
      const name = matchers.find(m => m.label === '__name__' && m.op === '=');
      found.push({ metric: name ? name.value : null, matchers });
      i = end;
    } else if (/[0-9.]/.test(c)) {  // a number or a duration: 0.99, 1e-3, 0x1F, 5m, 1h30m
      i += 1;
      while (i < text.length && /[0-9A-Za-z_.]/.test(text[i])) i += 1;
    } else if (identifierStart.test(c)) {
      let end = i + 1;
      while (end < text.length && identifierPart.test(text[end])) end += 1;
      const word = text.slice(i, end);
      let next = end;
      while (next < text.length && /\s/.test(text[next])) next += 1;
      const lower = word.toLowerCase();
      // "sum by (le) (x)": an aggregation whose grouping comes before its argument.
      const grouping = /^(by|without)\s*\(/i.test(text.slice(next));
      if (labelLists.has(lower) && text[next] === '(') {
        i = skipGroup(text, next);
      } else if (text[next] === '(' || grouping || keywords.has(lower)) {
        i = end;  // a function, an aggregation or a keyword
      } else if (text[next] === '{') {
        const close = skipGroup(text, next);
        found.push({ metric: word, matchers: parseMatchers(text.slice(next + 1, close - 1), text) });
        i = close;
      } else {
        found.push({ metric: word, matchers: [] });
        i = end;
      }
    } else {
      i += 1;
    }
  }
  return found;
}

// The metric names `expr` reads (a Set).
export function metricNames(expr) {
  return new Set(selectors(expr).map(s => s.metric).filter(Boolean));
}
