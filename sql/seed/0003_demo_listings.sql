-- A few hundred Kenyan listings across the spec's locations, property types,
-- product categories, land types and services. Deterministic (setseed), so
-- every fresh database gets the same demo site. Most listings are live
-- (paid for 5-60 more days); some are drafts; a few of Amina's await the
-- admin's approval, published through publish_listing (the ledger charges
-- her Nestcoins).

select setseed(0.2024);

create temporary table seed_owners (n integer primary key, id uuid not null) on commit drop;
insert into seed_owners (n, id)
select row_number() over (), id::uuid from unnest(array[
  '0e5a0000-0000-4000-8000-000000000002', '0e5a0000-0000-4000-8000-000000000002', '0e5a0000-0000-4000-8000-000000000002',
  '0e5a0000-0000-4000-8000-000000000003', '0e5a0000-0000-4000-8000-000000000003',
  '0e5a0000-0000-4000-8000-000000000004', '0e5a0000-0000-4000-8000-000000000005', '0e5a0000-0000-4000-8000-000000000006',
  '0e5a0000-0000-4000-8000-000000000007', '0e5a0000-0000-4000-8000-000000000008', '0e5a0000-0000-4000-8000-000000000009',
  '0e5a0000-0000-4000-8000-00000000000a']) as id;

create temporary table seed_locations (n integer primary key, location text not null, premium numeric not null) on commit drop;
insert into seed_locations (n, location, premium)
select row_number() over (), l, p from (values
  ('Kilimani, Nairobi', 1.4), ('Westlands, Nairobi', 1.5), ('Karen, Nairobi', 1.7), ('Kileleshwa, Nairobi', 1.4),
  ('Lavington, Nairobi', 1.5), ('Parklands, Nairobi', 1.2), ('South B, Nairobi', 1.0), ('Roysambu, Nairobi', 0.8),
  ('Kasarani, Nairobi', 0.8), ('Embakasi, Nairobi', 0.8), ('Kahawa West, Nairobi', 0.7), ('Ngong Road, Nairobi', 1.1),
  ('Upper Hill, Nairobi', 1.4), ('CBD, Nairobi', 1.1), ('Syokimau, Machakos', 0.8), ('Ruaka, Kiambu', 0.9),
  ('Kitengela, Kajiado', 0.7), ('Rongai, Kajiado', 0.7), ('Nyali, Mombasa', 1.3), ('Bamburi, Mombasa', 0.9),
  ('Mtwapa, Kilifi', 0.8), ('Diani, Kwale', 1.2), ('Milimani, Kisumu', 1.0), ('Nyalenda, Kisumu', 0.6),
  ('Milimani, Nakuru', 0.9), ('Section 58, Nakuru', 0.8), ('Elgon View, Eldoret', 0.9), ('Pioneer, Eldoret', 0.7),
  ('Nanyuki, Laikipia', 0.8), ('Naivasha, Nakuru', 0.9)) v(l, p);

create function pg_temp.pick(p_items text[], p_r double precision) returns text
  language sql immutable
as $$ select p_items[1 + floor(p_r * cardinality(p_items))::int] $$;

create temporary table seed_property_types (
  n integer primary key, type text not null, noun text not null, sale_noun text,
  rent_min bigint not null, rent_max bigint not null, unit text not null, sale_min bigint, sale_max bigint) on commit drop;
insert into seed_property_types values
  (1, 'Single Room', 'Single Room', null, 4000, 9000, 'month', null, null),
  (2, 'Bedsitter', 'Bedsitter', null, 7000, 15000, 'month', null, null),
  (3, 'One Bedroom', 'One Bedroom Apartment', 'One Bedroom Apartment', 15000, 35000, 'month', 3500000, 7500000),
  (4, 'Two Bedroom', 'Two Bedroom Apartment', 'Two Bedroom Apartment', 25000, 70000, 'month', 5500000, 14000000),
  (5, 'Three Bedroom', 'Three Bedroom Maisonette', 'Three Bedroom Maisonette', 45000, 150000, 'month', 9000000, 32000000),
  (6, 'Four+ Bedroom', 'Four Bedroom Villa', 'Four Bedroom Villa', 120000, 400000, 'month', 25000000, 95000000),
  (7, 'Vacation/Airbnb', 'Airbnb Studio', null, 4500, 25000, 'night', null, null),
  (8, 'Office Space', 'Office Space', 'Office Block', 40000, 500000, 'month', 18000000, 140000000),
  (9, 'Retail Space', 'Retail Shop', null, 30000, 250000, 'month', null, null),
  (10, 'Warehouse', 'Warehouse', 'Godown', 150000, 800000, 'month', 20000000, 120000000);

-- ---------------------------------------------------------------------------
-- Properties: 220, about a quarter of them for sale.
insert into public.properties (user_id, title, type, purpose, price, price_unit, location, description, deposit,
                               images, contact, is_active, payment_status, paid_until, created_at)
select o.id,
       pg_temp.pick(array['Spacious', 'Modern', 'Cosy', 'Newly Built', 'Furnished', 'Affordable', 'Executive', 'Serene',
                          'Secure', 'Elegant'], s.r3)
         || ' ' || x.noun || ' in ' || split_part(l.location, ',', 1),
       t.type,
       case when x.sale then 'Sale' else 'Rent' end,
       x.price,
       case when x.sale then 'total' else t.unit end,
       l.location,
       format('%s %s in %s with %s, %s and %s. %s',
              case when x.sale then 'For sale:' else 'To let:' end, lower(x.noun), l.location,
              pg_temp.pick(array['borehole water', 'a backup generator', 'CCTV and 24-hour security', 'ample parking',
                                 'fibre internet', 'a token electricity meter', 'tiled floors', 'a modern fitted kitchen'], s.r4),
              pg_temp.pick(array['a balcony with a view', 'a servant quarter', 'a gym and swimming pool', 'a lift',
                                 'a children''s play area', 'a rooftop terrace', 'solar water heating'], s.r5),
              pg_temp.pick(array['a shared garden', 'an electric fence', 'a caretaker on site',
                                 'ample water storage', 'a paved access road'], s.r2),
              pg_temp.pick(array['Close to Naivas supermarket and the matatu stage.', 'Ten minutes to the CBD.',
                                 'Near schools and hospitals.', 'Quiet neighbourhood, ideal for families.',
                                 'Walking distance to shopping malls.', 'Viewing by appointment.'], s.r1)),
       case when not x.sale and t.unit = 'month' then x.price * (1 + floor(s.r2 * 2)::int) end,
       '{}',
       coalesce(p.phone_number, '0700000000'),
       s.live, case when s.live then 'paid' else 'unpaid' end,
       case when s.live then now() + make_interval(days => 5 + floor(s.r3 * 55)::int) end,
       now() - make_interval(days => floor(s.r2 * 90)::int, mins => s.g)
from (
  select g, random() as r1, random() as r2, random() as r3, random() as r4, random() as r5,
         1 + floor(random() * 30)::int as li, 1 + floor(random() * 12)::int as oi, 1 + floor(random() * 10)::int as ti,
         random() < 0.35 as sale_roll, random() < 0.9 as live
  from generate_series(1, 220) g
) s
join seed_property_types t on t.n = s.ti
join seed_locations l on l.n = s.li
join seed_owners o on o.n = s.oi
left join public.profiles p on p.id = o.id
cross join lateral (
  select sale, case when sale then t.sale_noun else t.noun end as noun,
         case when sale then (round((t.sale_min + s.r1 * (t.sale_max - t.sale_min)) * l.premium / 50000) * 50000)::bigint
              else (round((t.rent_min + s.r1 * (t.rent_max - t.rent_min)) * l.premium / 500) * 500)::bigint end as price
    from (select s.sale_roll and t.sale_min is not null as sale) y
) x;

-- ---------------------------------------------------------------------------
-- Lands: 60.
insert into public.lands (userid, title, location, description, type, purpose, price, size, "sizeUnit", features, images,
                          is_active, payment_status, paid_until, "createdAt")
select o.id,
       case when t.type = 'Residential' then pg_temp.pick(array['1/8 Acre', '1/4 Acre', '1/2 Acre', '50x100'], s.r3) || ' Plot in '
            else trim_scale(x.size)::text || case when x.size = 1 then ' Acre ' else ' Acres ' end || t.type || ' Land in ' end || split_part(l.location, ',', 1),
       l.location,
       format('%s land %s in %s. %s %s',
              t.type, case when x.lease then 'for lease' else 'for sale' end, l.location,
              pg_temp.pick(array['Ready title deed, clean search.', 'Freehold title.', 'Leasehold title, 99 years.',
                                 'Allotment letter available.'], s.r4),
              pg_temp.pick(array['Serious buyers only.', 'Site visits every Saturday.', 'Price slightly negotiable.',
                                 'Payment plan available.'], s.r5)),
       t.type,
       case when x.lease then 'Lease' else 'Sale' end,
       x.price, x.size, 'acres',
       (select array_agg(f order by f) from (
          select distinct pg_temp.pick(array['Title deed ready', 'Water on site', 'Electricity nearby', 'Murram road access',
                                             'Gated community', 'Near tarmac road', 'Flat terrain', 'Fenced', 'Red soil',
                                             'Borehole', 'Controlled development', 'Near SGR station'], random() + s.g * 0) f
            from generate_series(1, 3 + floor(s.r2 * 3)::int)) ff),
       '{}',
       s.live, case when s.live then 'paid' else 'unpaid' end,
       case when s.live then now() + make_interval(days => 5 + floor(s.r3 * 55)::int) end,
       now() - make_interval(days => floor(s.r2 * 90)::int, mins => s.g)
from (
  select g, random() as r1, random() as r2, random() as r3, random() as r4, random() as r5,
         1 + floor(random() * 30)::int as li, 1 + floor(random() * 12)::int as oi, 1 + floor(random() * 5)::int as ti,
         random() < 0.2 as lease, random() < 0.9 as live
  from generate_series(1, 60) g
) s
join (values (1, 'Residential', 0.125, 0.5, 1200000, 9000000), (2, 'Commercial', 0.25, 2, 8000000, 60000000),
             (3, 'Agricultural', 2, 40, 350000, 1500000), (4, 'Industrial', 1, 10, 15000000, 90000000),
             (5, 'Mixed Use', 0.5, 5, 5000000, 40000000)) t(n, type, size_min, size_max, price_min, price_max) on t.n = s.ti
join seed_locations l on l.n = s.li
join seed_owners o on o.n = s.oi
cross join lateral (
  select s.lease as lease,
         round((t.size_min + s.r1 * (t.size_max - t.size_min))::numeric, 2) as size,
         case when s.lease then (round((20000 + s.r1 * 280000) * l.premium / 1000) * 1000)::bigint
              when t.type = 'Agricultural'
              then (round(t.price_min + s.r1 * (t.price_max - t.price_min)) * (t.size_min + s.r1 * (t.size_max - t.size_min)) / 10000)::bigint * 10000
              else (round((t.price_min + s.r1 * (t.price_max - t.price_min)) * l.premium / 50000) * 50000)::bigint end as price
) x;

-- ---------------------------------------------------------------------------
-- Products: 150 household and other items.
insert into public.products (user_id, name, price, status, category, description, location, images, contact, value_range,
                             is_active, payment_status, paid_until, created_at)
select o.id, i.name,
       (round((i.price_min + s.r1 * (i.price_max - i.price_min)) / 100) * 100)::bigint,
       case when s.r2 < 0.35 then 'New' else 'Used' end,
       i.category,
       format('%s, %s. %s %s', i.name,
              case when s.r2 < 0.35 then 'brand new in the box' else pg_temp.pick(array['gently used', 'in very good condition',
                'barely used, moving out sale', 'well kept, minor scratches'], s.r3) end,
              pg_temp.pick(array['Pick up in', 'Can deliver within', 'Located in'], s.r4), btrim(split_part(l.location, ',', 2)) || '.'),
       l.location, '{}', coalesce(p.phone_number, '0700000000'),
       case when i.price_max > 100000 then 'Premium' when i.price_max > 10000 then 'Standard' else 'Basic' end,
       s.live, case when s.live then 'paid' else 'unpaid' end,
       case when s.live then now() + make_interval(days => 5 + floor(s.r3 * 55)::int) end,
       now() - make_interval(days => floor(s.r2 * 60)::int, mins => s.g)
from (
  select g, random() as r1, random() as r2, random() as r3, random() as r4,
         1 + floor(random() * 30)::int as li, 1 + floor(random() * 12)::int as oi, 1 + floor(random() * 38)::int as ii,
         random() < 0.9 as live
  from generate_series(1, 150) g
) s
join (select row_number() over () as n, * from (values
  ('Furniture', '3 Seater Sofa', 18000, 65000), ('Furniture', 'Dining Table with 6 Chairs', 25000, 90000),
  ('Furniture', 'Ergonomic Office Chair', 6000, 20000), ('Furniture', 'Mahogany TV Stand', 7000, 25000),
  ('Electronics', 'Samsung 43" Smart TV', 28000, 45000), ('Electronics', 'HP EliteBook Laptop', 35000, 90000),
  ('Electronics', 'JBL Bluetooth Speaker', 5000, 25000), ('Electronics', 'Sony Home Theatre System', 20000, 60000),
  ('Electronics', 'Tecno Camon Smartphone', 12000, 35000),
  ('Kitchen', 'Ramtons Microwave', 8000, 16000), ('Kitchen', '4 Burner Gas Cooker with Oven', 18000, 45000),
  ('Kitchen', 'Von Blender', 3000, 9000), ('Kitchen', 'Non-stick Cookware Set', 4000, 12000),
  ('Kitchen', 'Hot and Cold Water Dispenser', 9000, 20000),
  ('Bedroom', '5x6 Bed with Mattress', 25000, 70000), ('Bedroom', '3 Door Wardrobe', 18000, 45000),
  ('Bedroom', 'Bedside Drawers (pair)', 4000, 10000), ('Bedroom', 'Orthopaedic Mattress 5x6', 15000, 35000),
  ('Bathroom', 'Instant Shower Heater', 3000, 8000), ('Bathroom', 'Bathroom Mirror Cabinet', 4000, 12000),
  ('Bathroom', 'Towel Rail Set', 1500, 4000),
  ('Decor', 'Canvas Wall Art Set', 3000, 12000), ('Decor', 'Maasai Shuka Throw', 1000, 3000),
  ('Decor', 'Persian Rug 6x9', 8000, 45000), ('Decor', 'Indoor Plant Pots (set of 3)', 1500, 6000),
  ('Lighting', 'Crystal Chandelier', 12000, 60000), ('Lighting', 'Solar Home Lighting Kit', 5000, 18000),
  ('Lighting', 'Wooden Floor Lamp', 3500, 12000),
  ('Appliances', 'LG Double Door Fridge', 45000, 120000), ('Appliances', 'Hotpoint Washing Machine 7kg', 35000, 85000),
  ('Appliances', 'Mika Deep Freezer', 30000, 70000), ('Appliances', 'Philips Iron Box', 1500, 4000),
  ('Storage', 'Metal Shoe Rack', 2000, 7000), ('Storage', 'Plastic Storage Drawers', 2500, 8000),
  ('Storage', 'Kitchen Cabinet Unit', 15000, 55000),
  ('Other', 'Baby Stroller', 6000, 25000), ('Other', 'Mountain Bike', 15000, 45000), ('Other', 'Treadmill', 45000, 180000)
) v(category, name, price_min, price_max)) i on i.n = s.ii
join seed_locations l on l.n = s.li
join seed_owners o on o.n = s.oi
left join public.profiles p on p.id = o.id;

-- ---------------------------------------------------------------------------
-- Service providers: 12 drone operators and 12 movers.
insert into public.service_providers (userid, name, category, location, description, services, pricing, reviews, rating,
                                      verified, phone, profileimage, is_active, payment_status, paid_until, created_at)
select o.id, v.name, v.category, v.location, v.description,
       case v.category
         when 'Drone' then (array['Aerial photography', 'Property videography', 'Land surveying and mapping', 'Event coverage',
                                  'Roof and structure inspection', 'Crop monitoring'])[1:3 + (v.n % 4)]
         else (array['House moving', 'Office relocation', 'Packing and unpacking', 'Furniture assembly', 'Storage',
                     'Upcountry moves'])[1:3 + (v.n % 4)] end,
       case v.category
         when 'Drone' then jsonb_build_array(
           jsonb_build_object('title', 'Property photo shoot', 'price', 6000 + v.n * 500, 'duration', '2 hours'),
           jsonb_build_object('title', 'Land mapping', 'price', 3000 + v.n * 250, 'duration', 'per acre'),
           jsonb_build_object('title', 'Event coverage', 'price', 15000 + v.n * 1000, 'duration', 'Full day'))
         else jsonb_build_array(
           jsonb_build_object('title', 'Bedsitter move', 'price', 5000 + v.n * 300, 'duration', 'Half day'),
           jsonb_build_object('title', 'Two bedroom move', 'price', 14000 + v.n * 600, 'duration', 'Full day'),
           jsonb_build_object('title', 'Three bedroom move', 'price', 24000 + v.n * 900, 'duration', 'Full day')) end,
       case when v.n % 5 = 0 then '[]'::jsonb else jsonb_build_array(
         jsonb_build_object('name', 'Wanjiku M.', 'rating', 5, 'comment', 'Very professional and on time.'),
         jsonb_build_object('name', 'Otieno J.', 'rating', 4, 'comment', 'Good work, fair price.')) end,
       case when v.n % 5 = 0 then null else round(3.8 + (v.n % 7) * 0.18, 1) end,
       v.n % 3 <> 0,
       coalesce(p.phone_number, '0700000000'), null,
       v.n % 8 <> 0, case when v.n % 8 <> 0 then 'paid' else 'unpaid' end,
       case when v.n % 8 <> 0 then now() + make_interval(days => 10 + v.n * 2) end,
       now() - make_interval(days => v.n * 3)
from (values
  (1, 'Drone', 'SkyView Aerials Kenya', 'Westlands, Nairobi', 'Licensed KCAA drone pilots for real estate photography and videography.'),
  (2, 'Drone', 'Nairobi Drone Mapping', 'Upper Hill, Nairobi', 'Survey-grade mapping and 3D models for land and construction sites.'),
  (3, 'Drone', 'Coast Aerials', 'Nyali, Mombasa', 'Stunning aerial shots of beach properties, hotels and events along the coast.'),
  (4, 'Drone', 'Lakeside Drone Works', 'Milimani, Kisumu', 'Aerial photography and inspections around Kisumu and the lake region.'),
  (5, 'Drone', 'Rift Valley Aerial Imaging', 'Milimani, Nakuru', 'Farm mapping, crop health monitoring and property videos.'),
  (6, 'Drone', 'Highlands Drone Services', 'Elgon View, Eldoret', 'Land surveys and event coverage across the North Rift.'),
  (7, 'Drone', 'Karen Aerial Studio', 'Karen, Nairobi', 'Premium videography for luxury homes and weddings.'),
  (8, 'Drone', 'Mlima Drones', 'Nanyuki, Laikipia', 'Ranch and conservancy mapping, roof inspections.'),
  (9, 'Drone', 'FlyHigh Media KE', 'Kilimani, Nairobi', 'Drone photography for listings, delivered within 48 hours.'),
  (10, 'Drone', 'Diani Sky Shots', 'Diani, Kwale', 'Holiday home and resort aerial marketing content.'),
  (11, 'Drone', 'Thika Road Aerials', 'Roysambu, Nairobi', 'Affordable aerial photos for apartments and plots.'),
  (12, 'Drone', 'Naivasha Aerial Views', 'Naivasha, Nakuru', 'Aerial shoots for farms, lodges and lakeside plots.'),
  (13, 'Moving', 'Swift Movers Kenya', 'Kilimani, Nairobi', 'House and office moves with packing materials and insured trucks.'),
  (14, 'Moving', 'Pamoja Movers', 'Embakasi, Nairobi', 'Affordable bedsitter and one bedroom moves across Nairobi.'),
  (15, 'Moving', 'Mombasa Relocations', 'Bamburi, Mombasa', 'Local and upcountry moves from the coast.'),
  (16, 'Moving', 'Lakeside Movers', 'Milimani, Kisumu', 'Careful household moves in Kisumu and western Kenya.'),
  (17, 'Moving', 'Rift Valley Shifters', 'Section 58, Nakuru', 'Moving, storage and furniture assembly in Nakuru.'),
  (18, 'Moving', 'Eldoret Express Movers', 'Pioneer, Eldoret', 'Same-day moves and upcountry transport.'),
  (19, 'Moving', 'Karen Premium Movers', 'Karen, Nairobi', 'White-glove moving for large homes and delicate items.'),
  (20, 'Moving', 'Hamia Haraka', 'Kasarani, Nairobi', 'Quick weekend moves with a crew of four.'),
  (21, 'Moving', 'Office Move Pros', 'Upper Hill, Nairobi', 'Office relocations over a weekend, IT equipment included.'),
  (22, 'Moving', 'Kitengela Movers', 'Kitengela, Kajiado', 'Moves between Kitengela, Syokimau and Nairobi.'),
  (23, 'Moving', 'Ruaka Shifters', 'Ruaka, Kiambu', 'Apartment moves in Ruaka, Kiambu and Westlands.'),
  (24, 'Moving', 'Coast Cargo Movers', 'Mtwapa, Kilifi', 'Household and boat cargo moves along the coast.')
) v(n, category, name, location, description)
join seed_owners o on o.n = 1 + (v.n % 12)
left join public.profiles p on p.id = o.id;

-- ---------------------------------------------------------------------------
-- Amina's newest drafts go through the fee flow: two rentals (7 days) and a
-- product (14 days) wait for the admin's approval.
select set_config('request.jwt.claims', '{"role":"service_role"}', true);
select public.publish_listing('property', id, 7, 'seed:publish:' || id::text)
from (select id from public.properties
       where user_id = '0e5a0000-0000-4000-8000-000000000002' and payment_status = 'unpaid' and purpose = 'Rent'
       order by created_at desc, id limit 2) d;
select public.publish_listing('product', id, 14, 'seed:publish:' || id::text)
from (select id from public.products
       where user_id = '0e5a0000-0000-4000-8000-000000000002' and payment_status = 'unpaid'
       order by created_at desc, id limit 1) d;
