-- A deposit seen at `processed` and then undetected was cleared to a JSON null, not SQL NULL: `deposit IS NOT
-- NULL` took such an order for one with a deposit (once expired, the sweep read its missing amount and failed
-- every pass for its asset). The writer stores SQL NULL now; rows written before are put right.
UPDATE orders SET deposit = NULL WHERE jsonb_typeof(deposit) = 'null';
