-- Issue 73: the rung of the fee grid the quotes' flat networkFee is priced at (docs/spec.md §9; src/domain/fee-grid.ts),
-- one row every process reads: the workers observe the market and move it compare-and-set on `version`, the API
-- processes read it every few seconds. `state` is the grid's watch and a pending move (src/store/fee-grid-store.ts).
CREATE TABLE fee_grid (
  id integer PRIMARY KEY CHECK (id = 1),
  version integer NOT NULL,
  state jsonb NOT NULL,
  updated_at timestamptz NOT NULL
);
