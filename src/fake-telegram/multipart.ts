/**
 * A multipart/form-data reader as lenient as Telegram's: grammY writes its parts' headers without
 * spaces and the file name unquoted (`content-disposition:form-data;name="x";filename=p.png`),
 * which the platform's strict `Request.formData()` refuses. Files come back with their bytes; a
 * field `attach://<name>` (how grammY names an uploaded file) is replaced by that part's file.
 */

export interface UploadedFile {
  file: string;
  size: number;
  bytes: Buffer;
}

const CRLF = Buffer.from('\r\n');
const HEAD_END = Buffer.from('\r\n\r\n');

function param(header: string, name: string): string | undefined {
  const m = new RegExp(`(?:^|;)\\s*${name}\\s*=\\s*(?:"([^"]*)"|([^;]*))`, 'i').exec(header);
  return m ? (m[1] ?? m[2]?.trim()) : undefined;
}

/** The fields of a multipart body; undefined when it is not one (no boundary, no parts). */
export function parseMultipart(body: Buffer, contentType: string): Record<string, string | UploadedFile> | undefined {
  const boundary = param(contentType, 'boundary');
  if (!boundary) return undefined;
  const delimiter = Buffer.from(`--${boundary}`);
  const fields: Record<string, string | UploadedFile> = {};
  let at = body.indexOf(delimiter);
  if (at < 0) return undefined;
  for (;;) {
    at += delimiter.length;
    if (body.subarray(at, at + 2).toString() === '--') break;
    if (body.subarray(at, at + 2).equals(CRLF)) at += 2;
    const headEnd = body.indexOf(HEAD_END, at);
    const next = body.indexOf(delimiter, at);
    if (headEnd < 0 || next < 0 || headEnd > next) return undefined;
    const head = body.subarray(at, headEnd).toString('utf8');
    const content = body.subarray(headEnd + 4, next - 2);
    const disposition = head.split('\r\n').find((l) => l.toLowerCase().startsWith('content-disposition')) ?? '';
    const name = param(disposition, 'name');
    const filename = param(disposition, 'filename');
    if (name !== undefined) fields[name] = filename === undefined ? content.toString('utf8') : { file: filename, size: content.length, bytes: Buffer.from(content) };
    at = next;
  }
  for (const [key, value] of Object.entries(fields)) {
    if (typeof value === 'string' && value.startsWith('attach://')) {
      const attached = fields[value.slice('attach://'.length)];
      if (attached !== undefined && typeof attached !== 'string') fields[key] = attached;
    }
  }
  return fields;
}
