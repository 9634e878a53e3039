import type { Catalogue } from './en'

/** Kiswahili catalogue. Typed as Catalogue so a missing key fails typecheck. */
export const sw: Catalogue = {
  'app.name': 'KejaNest',
  'app.tagline': 'Nyumba, Ardhi na Vifaa vya Nyumbani nchini Kenya',
  'app.loading': 'Inapakia...',

  'nav.label': 'Urambazaji mkuu',
  'nav.skipToContent': 'Ruka hadi maudhui',
  'nav.openMenu': 'Fungua menyu',
  'nav.home': 'Nyumbani',
  'nav.properties': 'Nyumba',
  'nav.marketplace': 'Sokoni',
  'nav.lands': 'Ardhi',
  'nav.p2p': 'P2P',
  'nav.services': 'Huduma',
  'nav.pricing': 'Bei',
  'nav.about': 'Kuhusu Sisi',
  'nav.signInRequired': 'Tafadhali ingia ili kufikia ukurasa huu',

  'account.menu': 'Menyu ya akaunti',
  'account.login': 'Ingia',
  'account.signup': 'Jisajili',
  'account.user': 'Mtumiaji',
  'account.dashboard': 'Dashibodi',
  'account.myProperties': 'Nyumba Zangu',
  'account.myProducts': 'Bidhaa Zangu',
  'account.myLands': 'Ardhi Yangu',
  'account.myServices': 'Huduma Zangu',
  'account.myP2pOffers': 'Ofa Zangu za P2P',
  'account.profile': 'Wasifu',
  'account.logout': 'Toka',

  'theme.switchToDark': 'Badili kwenda hali ya giza',
  'theme.switchToLight': 'Badili kwenda hali ya mwanga',
  'theme.lightActivated': 'Hali ya mwanga imewashwa',
  'theme.darkActivated': 'Hali ya giza imewashwa',

  'language.label': 'Lugha',
  'language.en': 'English',
  'language.sw': 'Kiswahili',

  'bottomBar.label': 'Urambazaji wa simu',
  'bottomBar.home': 'Nyumbani',
  'bottomBar.search': 'Tafuta',
  'bottomBar.p2p': 'P2P',
  'bottomBar.messages': 'Ujumbe',
  'bottomBar.profile': 'Wasifu',

  'footer.label': 'Sehemu ya chini',
  'footer.blurb': 'Vyumba, nyumba, ardhi na vifaa vya nyumbani kote Kenya, mahali pamoja.',
  'footer.followUs': 'Tufuate',
  'footer.propertyTypes': 'Aina za Nyumba',
  'footer.marketplace': 'Sokoni',
  'footer.help': 'Msaada',
  'footer.contact': 'Wasiliana Nasi',
  'footer.terms': 'Masharti ya Huduma',
  'footer.privacy': 'Sera ya Faragha',
  'footer.rights': '© {year} KejaNest. Haki zote zimehifadhiwa.',

  'social.facebook': 'Facebook',
  'social.x': 'X (Twitter)',
  'social.instagram': 'Instagram',
  'social.linkedin': 'LinkedIn',

  'propertyType.singleRoom': 'Chumba Kimoja',
  'propertyType.bedsitter': 'Bedsitter',
  'propertyType.oneBedroom': 'Chumba Kimoja cha Kulala',
  'propertyType.twoBedroom': 'Vyumba Viwili vya Kulala',
  'propertyType.threeBedroom': 'Vyumba Vitatu vya Kulala',

  'category.furniture': 'Samani',
  'category.electronics': 'Vifaa vya Kielektroniki',
  'category.kitchen': 'Jikoni',
  'category.bedroom': 'Chumba cha Kulala',
  'category.appliances': 'Vifaa vya Nyumbani',

  'home.intro': 'Pata vyumba, nyumba, ardhi, vifaa vya nyumbani na huduma za kuaminika kote Kenya.',

  'comingSoon.title': 'Inakuja hivi karibuni',
  'comingSoon.body': 'Ukurasa huu unaandaliwa. Tafadhali rudi baadaye.',
  'comingSoon.backHome': 'Rudi nyumbani',

  'error.title': 'Hitilafu ya Programu Isiyotarajiwa!',
  'error.body': 'Kuna tatizo lililotokea wakati wa kuonyesha ukurasa huu.',
  'error.backHome': 'Rudi nyumbani',

  'toast.region': 'Arifa ({hotkey})',
  'toast.close': 'Funga',
  'toast.notification': 'Arifa',
}
