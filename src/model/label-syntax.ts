// Label key and value syntax (apimachinery's IsQualifiedName / IsValidLabelValue),
// returning the same reasons. Lengths count UTF-8 bytes, as Go's len does.

const NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const NAME_RE = new RegExp(`^${NAME_FMT}$`);
const NAME_MSG = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const NAME_EXAMPLES = `(e.g. 'MyName' or 'my.name' or '123-abc', regex used for validation is '${NAME_FMT}')`;

const DNS_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS_SUBDOMAIN_FMT = `${DNS_LABEL_FMT}(\\.${DNS_LABEL_FMT})*`;
const DNS_SUBDOMAIN_RE = new RegExp(`^${DNS_SUBDOMAIN_FMT}$`);
const DNS_SUBDOMAIN_MSG = `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '${DNS_SUBDOMAIN_FMT}')`;

const VALUE_FMT = `(${NAME_FMT})?`;
const VALUE_RE = new RegExp(`^${VALUE_FMT}$`);
const VALUE_MSG = `a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue' or 'my_value' or '12345', regex used for validation is '${VALUE_FMT}')`;

const utf8 = new TextEncoder();
const byteLength = (s: string) => utf8.encode(s).length;

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
      if (byteLength(prefix) > 253) errs.push('prefix part must be no more than 253 bytes');
      if (!DNS_SUBDOMAIN_RE.test(prefix)) errs.push(`prefix part ${DNS_SUBDOMAIN_MSG}`);
    }
  } else {
    return [`a valid label key ${NAME_MSG} ${NAME_EXAMPLES} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`];
  }
  if (name === '') errs.push('name part must be non-empty');
  else if (byteLength(name) > 63) errs.push('name part must be no more than 63 bytes');
  if (!NAME_RE.test(name)) errs.push(`name part ${NAME_MSG} ${NAME_EXAMPLES}`);
  return errs;
}

/** Why `value` is not a valid label value; empty when it is one. */
export function labelValueErrors(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push('must be no more than 63 bytes');
  if (!VALUE_RE.test(value)) errs.push(VALUE_MSG);
  return errs;
}
