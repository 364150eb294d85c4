/** "Kraken2: classify reads taxonomically" → name "Kraken2", purpose "classify reads taxonomically". */
export function splitTitle(title: string): { name: string; purpose: string | undefined } {
  const at = title.indexOf(": ");
  return at === -1 ? { name: title, purpose: undefined } : { name: title.slice(0, at), purpose: title.slice(at + 2) };
}
