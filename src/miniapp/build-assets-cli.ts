/** `npm run build` step: the Mini App page into dist/miniapp-assets. */
import { join } from 'node:path';
import { writeAssets } from './build-assets.js';

const names = await writeAssets(join(process.cwd(), 'dist', 'miniapp-assets'));
process.stdout.write(`Mini App assets: ${names.join(', ')}\n`);
