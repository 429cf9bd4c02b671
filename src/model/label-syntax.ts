// Label key and value syntax (apimachinery's IsQualifiedName / IsValidLabelValue),
// returning the same reasons. Lengths count UTF-8 bytes, as Go's len does.

const NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const NAME_RE = new RegExp(`^${NAME_FMT}$`);
/** content.RegexError: each example is followed by "', " and joined with " or ", hence the double spaces. */
export function regexError(msg: string, re: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${re}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${re}')`;
}

const NAME_ERROR = regexError("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", NAME_FMT, 'MyName', 'my.name', '123-abc');

const DNS_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS_SUBDOMAIN_FMT = `${DNS_LABEL_FMT}(\\.${DNS_LABEL_FMT})*`;
const DNS_SUBDOMAIN_RE = new RegExp(`^${DNS_SUBDOMAIN_FMT}$`);
const DNS_SUBDOMAIN_MSG = regexError("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character", DNS_SUBDOMAIN_FMT, 'example.com');

const VALUE_FMT = `(${NAME_FMT})?`;
const VALUE_RE = new RegExp(`^${VALUE_FMT}$`);
const VALUE_MSG = regexError("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", VALUE_FMT, 'MyValue', 'my_value', '12345');

// The format regexes backtrack: on a string of megabytes V8 gives up with "Maximum call
// stack size exceeded". Past this length the too-long error already refuses the string,
// so the format is not checked (upstream reports both; the second adds nothing).
const FORMAT_CHECK_LIMIT = 4096;
const badFormat = (re: RegExp, s: string) => s.length <= FORMAT_CHECK_LIMIT && !re.test(s);

const utf8 = new TextEncoder();
/** Whether `s` is longer than `max` UTF-8 bytes; encoded only when its length leaves it open (a UTF-16 unit is 1 to 3 bytes). */
const longerThan = (s: string, max: number) => s.length > max || (s.length * 3 > max && utf8.encode(s).length > max);

/** Why `value` is not a qualified name (a label key: optional DNS-subdomain prefix and '/', then a name); empty when it is one. */
export function qualifiedNameErrors(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix === '') errs.push('prefix part must be non-empty');
    else {
      if (longerThan(prefix, 253)) errs.push('prefix part must be no more than 253 bytes');
      if (badFormat(DNS_SUBDOMAIN_RE, prefix)) errs.push(`prefix part ${DNS_SUBDOMAIN_MSG}`);
    }
  } else {
    return [`a valid label key ${NAME_ERROR} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`];
  }
  if (name === '') errs.push('name part must be non-empty');
  else if (longerThan(name, 63)) errs.push('name part must be no more than 63 bytes');
  if (badFormat(NAME_RE, name)) errs.push(`name part ${NAME_ERROR}`);
  return errs;
}

/** Why `value` is not a valid label value; empty when it is one. */
export function labelValueErrors(value: string): string[] {
  const errs: string[] = [];
  if (longerThan(value, 63)) errs.push('must be no more than 63 bytes');
  if (badFormat(VALUE_RE, value)) errs.push(VALUE_MSG);
  return errs;
}
