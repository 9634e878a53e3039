/**
 * Every route path the app links to, in one place. Screens that do not exist
 * yet still get a path here so links stay consistent when they land.
 */
export const paths = {
  root: '/',
  home: '/home',
  properties: '/properties',
  marketplace: '/marketplace',
  lands: '/lands',
  p2p: '/p2p',
  services: '/services',
  pricing: '/pricing',
  about: '/about',
  search: '/search',
  messages: '/messages',
  login: '/login',
  register: '/register',
  profile: '/profile',
  // The spec names /home as the signed-in user's dashboard target.
  dashboard: '/home',
  myProperties: '/my-properties',
  myProducts: '/my-products',
  myLands: '/my-lands',
  myServices: '/my-services',
  myP2pOffers: '/my-p2p-offers',
  contact: '/contact',
  terms: '/terms',
  privacy: '/privacy',
} as const

/** /properties filtered by property type, e.g. "Single Room". */
export function propertiesByType(type: string): string {
  return `${paths.properties}?type=${encodeURIComponent(type)}`
}

/** /marketplace filtered by category, e.g. "Furniture". */
export function marketplaceByCategory(category: string): string {
  return `${paths.marketplace}?category=${encodeURIComponent(category)}`
}

/** Router state handed to /login so it can return the user afterwards. */
export type LoginRedirectState = { from: string }
