/**
 * Preloaded by `npm run sim` (`--import`): when the command line plants a bug in the source (`--plant <name>` of
 * source-plants.ts), the module loader rewrites that one file as it loads it. It must run before anything imports
 * Hush's code, hence a preload rather than the CLI's own import.
 */
import { register } from 'node:module';
import { SOURCE_PLANTS } from './source-plants.ts';

const at = process.argv.indexOf('--plant');
const name = at >= 0 ? process.argv[at + 1] : process.argv.find((a) => a.startsWith('--plant='))?.slice('--plant='.length);
// Imported by the CLI too, once Hush's code is loaded: only a preload (`--import`) is in time to rewrite it.
const preloaded = process.execArgv.some((a) => a.includes('source-plant-hook'));
const plant = name !== undefined && preloaded ? SOURCE_PLANTS[name] : undefined;
if (plant) register('./source-plant-loader.mjs', import.meta.url, { data: { file: new URL(`../${plant.file}`, import.meta.url).href, from: plant.from, to: plant.to } });

/** The source plant this process loaded, if any. */
export const sourcePlanted: string | null = plant ? name! : null;
