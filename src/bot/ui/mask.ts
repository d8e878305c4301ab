/** How an access key is shown back to its owner: enough to recognise it, not enough to reuse it. */
export function maskKey(accessKey: string): string {
  if (accessKey.length >= 8) return `${accessKey.slice(0, 4)}…${accessKey.slice(-3)}`;
  if (accessKey.length >= 3) return `${accessKey.slice(0, 1)}…${accessKey.slice(-1)}`;
  return '…';
}
