/** The listing vocabularies of spec §9, as stored in the database. */
export const propertyTypes = [
  'Single Room',
  'Bedsitter',
  'One Bedroom',
  'Two Bedroom',
  'Three Bedroom',
  'Four+ Bedroom',
  'Vacation/Airbnb',
  'Office Space',
  'Retail Space',
  'Warehouse',
] as const
export type PropertyType = (typeof propertyTypes)[number]

export const propertyPurposes = ['Rent', 'Sale'] as const

/** Landing tiles (spec §2): the property types shown on /home. */
export const landingPropertyTypes = ['Single Room', 'Bedsitter', 'One Bedroom', 'Two Bedroom', 'Three Bedroom', 'Commercial'] as const

/** Landing and redirect-screen location tiles (spec §9). */
export const landingLocations = ['Nairobi', 'Mombasa', 'Kisumu', 'Nakuru', 'Eldoret', 'Westlands', 'Kilimani', 'Karen'] as const

export const productCategories = [
  'Furniture',
  'Electronics',
  'Kitchen',
  'Bedroom',
  'Bathroom',
  'Decor',
  'Lighting',
  'Appliances',
  'Storage',
  'Other',
] as const
export const productStatuses = ['New', 'Used'] as const
/** Value bands a seller may pick for an item (products.value_range, default Basic). */
export const productValueRanges = ['Basic', 'Standard', 'Premium'] as const

export const landTypes = ['Residential', 'Commercial', 'Agricultural', 'Industrial', 'Mixed Use'] as const
export const landPurposes = ['Sale', 'Lease'] as const
export const landSizeUnits = ['acres', 'hectares', 'sq ft', 'sq m'] as const
export const landSorts = ['newest', 'price-asc', 'price-desc'] as const
export type LandSort = (typeof landSorts)[number]

export const serviceCategories = ['Drone', 'Moving'] as const
export type ServiceCategory = (typeof serviceCategories)[number]

/** Cards show this many items before a '+N' count (spec §9). */
export const LAND_CARD_FEATURES = 2
export const SERVICE_CARD_SERVICES = 3
export const SERVICE_CARD_PRICING = 2
