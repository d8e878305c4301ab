/**
 * `/export … parts`: a CSV made in slices (the header first) cut into files a phone can take, each
 * starting with the header, cut only between lines. Works on the bytes as made, so a 14 MB export is
 * never joined into one string.
 */

const NEWLINE = 0x0a;

/** Telegram takes documents up to 50 MB from a bot; past this the CSV goes in parts. */
export const DOCUMENT_MAX_BYTES = 45 * 1024 * 1024;
/** One part of `/export … parts` (and of a Mini App export past DOCUMENT_MAX_BYTES). */
export const PART_BYTES = 1024 * 1024;
export const PARTS_MAX = 20;

/**
 * Files of at most `partBytes` of rows each (plus the header); a single line longer than that goes
 * alone in its own file.
 */
export function packParts(slices: readonly Buffer[], partBytes: number): Buffer[] {
  const [header = Buffer.alloc(0), ...rows] = slices;
  const parts: Buffer[] = [];
  let current: Buffer[] = [];
  let size = 0;
  const close = () => {
    parts.push(Buffer.concat([header, ...current]));
    current = [];
    size = 0;
  };
  for (const slice of rows) {
    let at = 0;
    while (at < slice.length) {
      const room = partBytes - size;
      let end = slice.length;
      if (end - at > room) {
        // The last whole line that fits; a negative offset would search from the end.
        end = room > 0 ? slice.lastIndexOf(NEWLINE, at + room - 1) + 1 : 0;
        if (end <= at) {
          if (size > 0) {
            close();
            continue;
          }
          const eol = slice.indexOf(NEWLINE, at);
          end = eol < 0 ? slice.length : eol + 1;
        }
      }
      current.push(slice.subarray(at, end));
      size += end - at;
      at = end;
    }
  }
  if (size > 0) close();
  return parts;
}
