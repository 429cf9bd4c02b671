// YAML highlighting whose cost does not grow with the text. CodeMirror's YAML
// language parses the whole document, 20 ms inside the change that sets it and then
// in background slices that Chromium lets run for 100 ms each (its parse worker only
// yields to pending input): a dropped kubectl dump of 2,000 lines took main-thread
// tasks of 100-150 ms. Above LARGE_TEXT characters a pane is highlighted line by
// line instead, only the lines on screen, with the same colours: keys, quoted
// strings, comments and document markers. Folding and YAML indentation are then off.

import { yaml } from '@codemirror/lang-yaml';
import { Compartment, EditorState, RangeSetBuilder, type Extension } from '@codemirror/state';
import { Decoration, EditorView, ViewPlugin, type DecorationSet, type ViewUpdate } from '@codemirror/view';

/** Above this many characters the full parse would cost tens of milliseconds: a pane gets the line highlighter. */
export const LARGE_TEXT = 12_000;
/** Characters of one line that are highlighted (a minified JSON file is one long line). */
const MAX_LINE = 4_000;

export type TokenKind = 'key' | 'string' | 'comment' | 'meta';
export interface Token {
  readonly from: number;
  readonly to: number;
  readonly kind: TokenKind;
}

const isSpace = (c: string | undefined) => c === ' ' || c === '\t';
const FLOW = ',[]{}';

/** Whether position k ends a plain scalar's ': ' (end of line, a space, or in a flow collection a flow indicator). */
function breakAt(line: string, k: number, flow: boolean): boolean {
  return k >= line.length || isSpace(line[k]) || (flow && FLOW.includes(line[k]!));
}

/** The end of a quoted scalar starting at i (after its closing quote, or the line's end). */
function quotedEnd(line: string, i: number): number {
  const q = line[i]!;
  for (let k = i + 1; k < line.length; k++) {
    if (q === '"' && line[k] === '\\') k++;
    else if (line[k] === q) {
      if (q === "'" && line[k + 1] === "'") k++;
      else return k + 1;
    }
  }
  return line.length;
}

/** The end of a plain scalar starting at i: before ': ', ' #' or, in a flow collection, a flow indicator. */
function plainEnd(line: string, i: number, flow: boolean): number {
  let k = i + 1;
  for (; k < line.length; k++) {
    const c = line[k]!;
    if (c === ':' && breakAt(line, k + 1, flow)) break;
    if (c === '#' && isSpace(line[k - 1])) break;
    if (flow && FLOW.includes(c)) break;
  }
  while (k > i + 1 && isSpace(line[k - 1])) k--;
  return k;
}

/**
 * The highlighted spans of one line of YAML, read on its own (a line inside a block
 * scalar or a multi-line flow collection may be coloured as if it were not).
 */
export function yamlLineTokens(line: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  if (/^(---|\.\.\.)(\s|$)/.test(line)) {
    tokens.push({ from: 0, to: 3, kind: 'meta' });
    i = 3;
  }
  let depth = 0;
  while (i < line.length) {
    const c = line[i]!;
    if (isSpace(c) || c === ',') i++;
    else if (c === '#' && (i === 0 || isSpace(line[i - 1]))) {
      tokens.push({ from: i, to: line.length, kind: 'comment' });
      break;
    } else if (c === '{' || c === '[') {
      depth++;
      i++;
    } else if (c === '}' || c === ']') {
      depth = Math.max(0, depth - 1);
      i++;
    } else if ((c === '-' || c === '?' || c === ':') && breakAt(line, i + 1, depth > 0)) i++;
    else {
      const quoted = c === '"' || c === "'";
      const end = quoted ? quotedEnd(line, i) : plainEnd(line, i, depth > 0);
      let j = end;
      while (isSpace(line[j])) j++;
      // A quoted key may touch its value ("a":1, as JSON writes it).
      if (line[j] === ':' && (quoted || breakAt(line, j + 1, depth > 0))) {
        tokens.push({ from: i, to: end, kind: 'key' });
        i = j + 1;
      } else {
        if (quoted) tokens.push({ from: i, to: end, kind: 'string' });
        i = end;
      }
    }
  }
  return tokens;
}

const MARKS: Record<TokenKind, Decoration> = {
  key: Decoration.mark({ class: 'cm-yaml-key' }),
  string: Decoration.mark({ class: 'cm-yaml-string' }),
  comment: Decoration.mark({ class: 'cm-yaml-comment' }),
  meta: Decoration.mark({ class: 'cm-yaml-meta' }),
};

function visibleTokens(view: EditorView): DecorationSet {
  const builder = new RangeSetBuilder<Decoration>();
  const doc = view.state.doc;
  for (const { from, to } of view.visibleRanges) {
    for (let pos = from; pos <= to; ) {
      const line = doc.lineAt(pos);
      for (const t of yamlLineTokens(doc.sliceString(line.from, Math.min(line.to, line.from + MAX_LINE)))) builder.add(line.from + t.from, line.from + t.to, MARKS[t.kind]);
      pos = line.to + 1;
    }
  }
  return builder.finish();
}

/** The line highlighter: only the lines on screen, again each time the text or the view changes. */
const lineHighlighter: Extension = [
  ViewPlugin.fromClass(
    class {
      decorations: DecorationSet;
      constructor(view: EditorView) {
        this.decorations = visibleTokens(view);
      }
      update(u: ViewUpdate) {
        if (u.docChanged || u.viewportChanged) this.decorations = visibleTokens(u.view);
      }
    },
    { decorations: (v) => v.decorations },
  ),
  // The colours of CodeMirror's default highlight style for the same YAML tokens.
  EditorView.baseTheme({ '.cm-yaml-key': { color: '#00c' }, '.cm-yaml-string': { color: '#a11' }, '.cm-yaml-comment': { color: '#940' }, '.cm-yaml-meta': { color: '#404740' } }),
];

const fullYaml = yaml();
const highlighterFor = (length: number): Extension => (length > LARGE_TEXT ? lineHighlighter : fullYaml);

/** YAML highlighting for an editor: the full language for small texts, the line highlighter for large ones, switched as the text grows or shrinks. */
export function yamlHighlighting(): Extension {
  const mode = new Compartment();
  return [
    mode.of(fullYaml),
    EditorState.transactionExtender.of((tr) => {
      if (!tr.docChanged) return null;
      const wanted = highlighterFor(tr.newDoc.length);
      return mode.get(tr.startState) === wanted ? null : { effects: mode.reconfigure(wanted) };
    }),
  ];
}
