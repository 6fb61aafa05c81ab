-- ═════════════════════════════════════════════════════════════════════════════════════════════════
-- What a delivery sent. In Colombia the buyer is owed the AttachedDocument (the UBL container of the
-- invoice and the authority's ApplicationResponse) zipped with the PDF, not the PDF alone:
-- each delivery records the files it handed to the deliver provider — the ZIP, its size, and the
-- files inside it — so "what did the buyer get" is answered from the record, not from an inbox.
--
-- The AttachedDocument XML is kept in the private bucket beside the PDF
-- (`<org_id>/<invoices|credit-notes>/<document_id>/ad-<number>-<fingerprint>.xml`), so the bucket now
-- takes XML too.
-- ═════════════════════════════════════════════════════════════════════════════════════════════════

-- ─── deliveries.attachments ──────────────────────────────────────────────────────────────────────
-- null: nothing was handed to the provider (a delivery that failed first, or one recorded before
-- this column existed). Otherwise `[{ filename, content_type, size, files: [{ filename, size }] }]`,
-- written by the service only (members read it with the row, under the table's read policy).
alter table public.deliveries
  add column attachments jsonb
    constraint deliveries_attachments_bounded
    check (jsonb_typeof(attachments) = 'array' and length(attachments::text) <= 8192);

-- ─── storage: the bucket takes the AttachedDocument XML beside the PDFs ──────────────────────────
update storage.buckets
   set allowed_mime_types = array['application/pdf', 'application/xml']
 where id = 'service-documentos';

-- ─── database API (service_role) ─────────────────────────────────────────────────────────────────
-- Records, on a delivery still open (`pendiente`), the files about to be sent; `delivery_not_open`
-- once its outcome is recorded, so what a closed delivery says it sent never changes.
create function public.einv_delivery_attachments(
  p_org_id uuid, p_delivery_id uuid, p_attachments jsonb
) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  _d public.deliveries;
begin
  update public.deliveries
     set attachments = p_attachments
   where id = p_delivery_id and org_id = p_org_id and status = 'pendiente'
  returning * into _d;
  if not found then
    raise exception 'delivery_not_open' using errcode = 'P0001', hint = 'invalid_state';
  end if;
  return jsonb_build_object('delivery_id', _d.id, 'attachments', _d.attachments);
end
$$;

revoke all on function public.einv_delivery_attachments(uuid, uuid, jsonb)
  from public, anon, authenticated, service_role;
grant execute on function public.einv_delivery_attachments(uuid, uuid, jsonb) to service_role;
