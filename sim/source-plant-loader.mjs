// Module loader hooks (node:module register) for a source plant: plain JavaScript, as hooks run on the loader's own
// thread before any TypeScript loader is chained in. The planted file is loaded as the next loader (tsx) gives it,
// its one text replaced (matched whatever its spacing); a text no longer there fails the load, so a plant cannot go stale silently.
let plant = null;

export function initialize(data) {
  plant = data;
}

export async function load(url, context, nextLoad) {
  const loaded = await nextLoad(url, context);
  if (!plant || url.split('?')[0] !== plant.file) return loaded;
  const source = String(loaded.source);
  const from = loose(plant.from);
  if (!from.test(source)) throw new Error(`source plant: ${plant.file} no longer says ${JSON.stringify(plant.from)}`);
  return { ...loaded, source: source.replace(from, () => plant.to) };
}

/** The text as a pattern blind to spacing: the next loader hands the file on compiled, its spaces rewritten. */
function loose(text) {
  const tokens = text.match(/\w+|\S/g) ?? [];
  return new RegExp(tokens.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('\\s*'));
}
