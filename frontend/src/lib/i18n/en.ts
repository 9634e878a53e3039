/**
 * English catalogue: the source of truth for message keys. Values may hold
 * `{name}` placeholders filled by t(key, { name }).
 */
import type { enAccount } from './en-account'
import { enAuth } from './en-auth'
import { enListings } from './en-listings'
import { enSite } from './en-site'

/** The shell's own copy (navigation, chrome); the pages' copy comes from the part files. */
export const enShell = {
  'app.name': 'KejaNest',
  'app.tagline': 'Real Estate and Household Items in Kenya',
  'app.loading': 'Loading...',

  'nav.label': 'Main navigation',
  'nav.skipToContent': 'Skip to content',
  'nav.openMenu': 'Open menu',
  'nav.home': 'Home',
  'nav.properties': 'Properties',
  'nav.marketplace': 'Marketplace',
  'nav.lands': 'Lands',
  'nav.p2p': 'P2P',
  'nav.services': 'Services',
  'nav.pricing': 'Pricing',
  'nav.about': 'About Us',
  'nav.signInRequired': 'Please sign in to access this page',

  'account.menu': 'Account menu',
  'account.login': 'Log in',
  'account.signup': 'Sign up',
  'account.user': 'User',
  'account.dashboard': 'Dashboard',
  'account.myProperties': 'My Properties',
  'account.myProducts': 'My Products',
  'account.myLands': 'My Lands',
  'account.myServices': 'My Services',
  'account.myP2pOffers': 'My P2P Offers',
  'account.saved': 'Saved Listings',
  'account.profile': 'Profile',
  'account.logout': 'Log out',
  'account.signedOut': 'Signed out successfully.',
  'account.signOutFailed': 'An error occurred during sign out',

  'theme.switchToDark': 'Switch to dark mode',
  'theme.switchToLight': 'Switch to light mode',
  'theme.lightActivated': 'Light mode activated',
  'theme.darkActivated': 'Dark mode activated',

  'language.label': 'Language',
  'language.en': 'English',
  'language.sw': 'Kiswahili',

  'bottomBar.label': 'Mobile navigation',
  'bottomBar.home': 'Home',
  'bottomBar.search': 'Search',
  'bottomBar.p2p': 'P2P',
  'bottomBar.messages': 'Messages',
  'bottomBar.profile': 'Profile',

  'footer.label': 'Footer',
  'footer.blurb': 'Rooms, homes, land and household items across Kenya, in one place.',
  'footer.followUs': 'Follow us',
  'footer.propertyTypes': 'Property Types',
  'footer.marketplace': 'Marketplace',
  'footer.help': 'Help',
  'footer.contact': 'Contact Us',
  'footer.terms': 'Terms of Service',
  'footer.privacy': 'Privacy Policy',
  'footer.rights': '© {year} KejaNest. All rights reserved.',

  'social.facebook': 'Facebook',
  'social.x': 'X (Twitter)',
  'social.instagram': 'Instagram',
  'social.linkedin': 'LinkedIn',

  'propertyType.singleRoom': 'Single Room',
  'propertyType.bedsitter': 'Bedsitter',
  'propertyType.oneBedroom': 'One Bedroom',
  'propertyType.twoBedroom': 'Two Bedroom',
  'propertyType.threeBedroom': 'Three Bedroom',

  'category.furniture': 'Furniture',
  'category.electronics': 'Electronics',
  'category.kitchen': 'Kitchen',
  'category.bedroom': 'Bedroom',
  'category.appliances': 'Appliances',

  'home.intro': 'Find rooms, homes, land, household items and trusted services across Kenya.',

  'comingSoon.title': 'Coming soon',
  'comingSoon.body': 'This page is on its way. Please check back later.',
  'comingSoon.backHome': 'Back to home',

  'error.title': 'Unexpected Application Error!',
  'error.body': 'Something went wrong while showing this page.',
  'error.backHome': 'Back to home',

  'install.title': 'Install {name}',
  'install.body': 'Install our app for a better experience with offline access and quick launch.',
  'install.install': 'Install',
  'install.dismiss': 'Not now',
  'install.done': '{name} installed successfully!',

  'toast.region': 'Notifications ({hotkey})',
  'toast.close': 'Close',
  'toast.notification': 'Notification',
} as const

/**
 * The English copy the landing route carries. The signed-in account pages'
 * copy (en-account.ts: profile, contact verification, KYC) is registered by
 * those pages' chunks (lib/i18n/account.ts), so visitors never download it;
 * its keys are still message keys.
 */
export const en = { ...enShell, ...enSite, ...enAuth, ...enListings } as const

/** A key of the message catalogues. */
export type MessageKey = keyof typeof en | keyof typeof enAccount

/** A complete catalogue: every key translated. */
export type Catalogue = Record<MessageKey, string>
