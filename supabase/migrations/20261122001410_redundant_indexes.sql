-- ═════════════════════════════════════════════════════════════════════════════════════════════════
-- Indexes a unique constraint already provides (issue 14).
--
-- A lifecycle write changes `status`, so it is never a HOT update: every index of the table gets a
-- new entry, and at a million invoices each one is a page read and a page write more per claim, per
-- record and per reconciled document (`npm run bench -- --scale`). These three duplicate the
-- leading column of a unique constraint on the same table, which serves the same lookups (and the
-- foreign keys' checks) as well:
--   invoices (company_id)            ⊂ unique (company_id, number)
--   invoice_lines (invoice_id)       ⊂ unique (invoice_id, position)   — also ordered by position
--   credit_notes (company_id)        ⊂ unique (company_id, number)
-- ═════════════════════════════════════════════════════════════════════════════════════════════════
drop index public.invoices_company_id_idx;
drop index public.invoice_lines_invoice_id_idx;
drop index public.credit_notes_company_id_idx;
