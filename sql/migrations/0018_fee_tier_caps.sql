-- The fee table's top price tiers end where spec §9 says they do: 150M KES
-- for sales ('High (25M - 150M KES)') and 500,000 KES on the marketplace
-- ('High (100,001 - 500,000 KES)'). A dearer listing matches no tier, so
-- publish_listing refuses it with 'No listing fee applies to this listing',
-- as the app's forms refuse its price: the server enforces what the client
-- checks. Listings published before keep their paid days.
update public.listing_fee_rates set max_price = 150000000 where category = 'sale' and max_price is null;
update public.listing_fee_rates set max_price = 500000 where category = 'market' and max_price is null;
comment on column public.listing_fee_rates.max_price is 'Inclusive upper bound in KES; NULL means none. The top sale and market tiers end at the spec''s maxima (150M, 500,000): a dearer listing has no fee and cannot be published.';
