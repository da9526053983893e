// The one rule for a name that must be a Kubernetes object name of at most 63 characters (an
// RFC 1123 label: a namespace, a HeldJob the receiver names): lower-case letters, digits and
// '-', starting and ending with a letter or digit.
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

export function isDnsLabel(value: string): boolean {
  return DNS_LABEL.test(value);
}
