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
  forgotPassword: '/forgot-password',
  resetPassword: '/reset-password',
  wallet: '/wallet',
  listProperty: '/list-property',
  listProduct: '/list-product',
  listLand: '/list-land',
  listService: '/list-service',
  adminLogin: '/admin/login',
  adminDashboard: '/admin/dashboard',
  profile: '/profile',
  kycVerification: '/kyc-verification',
  // The spec names /home as the signed-in user's dashboard target.
  dashboard: '/home',
  myProperties: '/my-properties',
  myProducts: '/my-products',
  myLands: '/my-lands',
  myServices: '/my-services',
  myP2pOffers: '/my-p2p-offers',
  contact: '/contact',
  saved: '/saved',
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

/** One conversation of /messages. */
export const conversationPath = (id: string) => `${paths.messages}/${id}`

/** Detail pages of the four listing kinds. */
export const detailPath = {
  property: (id: string) => `${paths.properties}/${id}`,
  product: (id: string) => `${paths.marketplace}/${id}`,
  land: (id: string) => `${paths.lands}/${id}`,
  service: (id: string) => `/service-provider/${id}`,
  editService: (id: string) => `/edit-service/${id}`,
}
