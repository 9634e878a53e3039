/**
 * English copy of /search, /saved (and the heart on listings), the contact
 * form (/contact, /about) and the Google button's separator; loaded with
 * those chunks (see discover.ts).
 */
export const enDiscover = {
  'discover.kind.property': 'Properties',
  'discover.kind.product': 'Marketplace',
  'discover.kind.land': 'Land',
  'discover.kind.service': 'Services',

  'search.title': 'Search',
  'search.intro': 'Find properties, marketplace items, land and services in one place.',
  'search.label': 'Search listings',
  'search.placeholder': 'A place, a home type, an item or a service...',
  'search.submit': 'Search',
  'search.prompt': 'What are you looking for?',
  'search.promptHint': 'Type a place such as Kilimani, a home type, an item or a service, then press Search.',
  'search.loading': 'Searching...',
  'search.groupLoading': 'Searching {kind}...',
  'search.empty': 'No results for "{q}"',
  'search.emptyHint': 'Check the spelling, or try a shorter or more general search.',
  'search.failed': 'Search failed',
  'search.groupFailed': 'Could not search {kind}',
  'search.resultsFor': 'Results for "{q}"',
  'search.count': '{count} results',
  'search.countOne': '1 result',
  'search.seeAll': 'See all',
  'search.metaTitle': 'Search',
  'search.metaTitleFor': '"{q}" - Search',

  'saved.title': 'Saved Listings',
  'saved.intro': 'The listings you saved with the heart, in one place.',
  'saved.save': 'Save {title}',
  'saved.saveShort': 'Save',
  'saved.failed': 'Could not update your saved listings',
  'saved.notAvailableToSave': 'This listing is no longer available',
  'saved.loading': 'Loading your saved listings...',
  'saved.loadFailed': 'Failed to load your saved listings',
  'saved.empty': "You haven't saved any listings yet",
  'saved.emptyHint': 'Tap the heart on a listing to keep it here. Start browsing:',
  'saved.remove': 'Remove',
  'saved.removeLabel': 'Remove {title} from saved listings',
  'saved.unavailable': 'No longer available',
  'saved.unavailableHint': 'The owner removed or paused this listing.',
  'saved.unavailableTitle': 'unavailable listing',
  'saved.count': '{count} saved',

  'contact.title': 'Contact us',
  'contact.intro': 'Questions, feedback or a problem with a listing? Send us a message and we will reply by email.',
  'contact.sending': 'Sending...',
  'contact.sent': 'Message sent',
  'contact.sentBody': 'Thank you for reaching out. We will reply to {email} as soon as we can.',
  'contact.sendAnother': 'Send another message',
  'contact.failed': 'Failed to send your message',
  'contact.tooMany': 'Too many messages',
  'contact.tooManyHint': 'Please wait a while before sending another message.',
  'contact.firstNameRequired': 'Enter your first name',
  'contact.lastNameRequired': 'Enter your last name',
  'contact.nameTooLong': 'Names must be at most 50 characters each',
  'contact.emailTooLong': 'Email must be at most 254 characters',
  'contact.messageTooShort': 'Message must be at least 10 characters',
  'contact.messageTooLong': 'Message must be at most 5,000 characters',
  'contact.messageHelp': '10 to 5,000 characters.',

  'auth.or': 'or',
} as const

export type DiscoverKey = keyof typeof enDiscover
