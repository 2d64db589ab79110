/**
 * The menu of private amounts (docs/spec.md §9): which pinned amounts of an asset are standard. Fewer
 * classes fill faster, so the default is one amount per decade; 1-2-5 triples the classes for an operator
 * whose traffic fills them; `list` takes each asset's own list from the asset file.
 */

export type DenominationMenu = 'decade' | '1-2-5' | 'list';

export const DENOMINATION_MENUS: readonly DenominationMenu[] = ['decade', '1-2-5', 'list'];

const MULTIPLIERS: Record<Exclude<DenominationMenu, 'list'>, readonly bigint[]> = {
  decade: [1n],
  '1-2-5': [1n, 2n, 5n],
};

/**
 * The menu's amounts within [min, max], ascending: m·10ⁿ for each of the menu's multipliers m (base
 * units). `list` is the asset's explicit list, already checked to ascend within its bounds.
 */
export function denominationsFor(menu: DenominationMenu, bounds: { min: bigint; max: bigint }, list: readonly bigint[]): bigint[] {
  if (menu === 'list') return [...list];
  if (bounds.min > bounds.max || bounds.max < 1n) return [];
  const out: bigint[] = [];
  for (let decade = 1n; decade <= bounds.max; decade *= 10n) {
    for (const m of MULTIPLIERS[menu]) {
      const d = m * decade;
      if (d >= bounds.min && d <= bounds.max) out.push(d);
    }
  }
  return out;
}
