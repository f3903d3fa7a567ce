/**
 * The words the fact finder (`Facts`) knows: who a sentence is about, what job titles, relations,
 * pets, counted things and planned events are, and how numbers are written. Plain lists, so a
 * reader can see at once what is and is not recognised.
 * @module
 */

/** A list of words and phrases, written as one `|`-separated line so the lists stay readable. */
const words = (list: string): ReadonlyArray<string> => list.split("|")

/** Family and close relations a subject can be ("my sister moved to Berlin"). */
export const relations = words(
  "husband|wife|spouse|partner|boyfriend|girlfriend|fiancé|fiancée|fiance|fiancee|mom|mum|mother|dad|father|sister|brother|son|daughter|grandma|grandmother|grandpa|grandfather|aunt|uncle|cousin|niece|nephew|roommate|flatmate|best friend|friend|boss|colleague|coworker|neighbor|neighbour|stepmom|stepdad|stepson|stepdaughter|sister-in-law|brother-in-law|mother-in-law|father-in-law|kids|parents|mate|bandmate|housemate|teammate|classmate|workmate|manager|mentor|bestie|bff|buddy|pal|landlord|landlady|ex|stepsister|stepbrother|grandson|granddaughter|in-laws|twin"
)

/** Words for a romantic partner, and the relationship status each implies. */
export const partnerWords: Readonly<Record<string, string>> = {
  boyfriend: "dating",
  girlfriend: "dating",
  partner: "together",
  fiancé: "engaged",
  fiancée: "engaged",
  fiance: "engaged",
  fiancee: "engaged",
  husband: "married",
  wife: "married",
  spouse: "married"
}

/**
 * Job title heads: a role is one of these, with any modifiers before it ("senior software
 * engineer", "head nurse", "product manager").
 */
export const roleHeads = words(
  "engineer|developer|programmer|designer|manager|director|teacher|professor|lecturer|nurse|doctor|physician|surgeon|dentist|vet|veterinarian|lawyer|attorney|paralegal|accountant|auditor|analyst|scientist|researcher|consultant|architect|chef|cook|baker|barista|waiter|waitress|bartender|pilot|driver|mechanic|electrician|plumber|carpenter|writer|author|journalist|reporter|editor|photographer|artist|illustrator|musician|actor|actress|paramedic|firefighter|officer|pharmacist|therapist|psychologist|psychiatrist|counselor|counsellor|intern|cashier|clerk|receptionist|secretary|assistant|coordinator|specialist|technician|administrator|founder|co-founder|cofounder|ceo|cto|cfo|coo|cmo|vp|president|lead|head|principal|librarian|economist|statistician|mathematician|physicist|chemist|biologist|geologist|pharmacologist|recruiter|salesperson|representative|rep|agent|broker|banker|trader|investor|entrepreneur|owner|supervisor|foreman|contractor|freelancer|translator|interpreter|tutor|coach|trainer|instructor|dietitian|nutritionist|optometrist|midwife|caregiver|social worker|firefighter|police officer|soldier|sergeant|lieutenant|captain|engineer|strategist|marketer|copywriter|producer|animator|curator|archivist|planner|surveyor|inspector|estimator|underwriter|actuary|controller|treasurer|clerk|student|resident|fellow|postdoc|phd student|grad student|apprentice|partner"
)

/** Animals people keep. */
export const petKinds = words(
  "dog|puppy|pup|cat|kitten|kitty|rabbit|bunny|hamster|guinea pig|parrot|bird|budgie|fish|goldfish|turtle|tortoise|snake|lizard|gecko|ferret|horse|pony|chicken|hen|rat|mouse|hedgehog|chinchilla|cockatiel|greyhound|beagle|labrador|lab|retriever|poodle|terrier|spaniel|shepherd|husky|corgi|dachshund|bulldog|pug|collie|mutt|tabby"
)

/** Counted things, by the word that names them, and the slot they share ("kids" and "children"). */
export const countedThings: Readonly<Record<string, string>> = {
  kid: "children",
  kids: "children",
  child: "children",
  children: "children",
  son: "sons",
  sons: "sons",
  daughter: "daughters",
  daughters: "daughters",
  baby: "children",
  babies: "children",
  grandchild: "grandchildren",
  grandchildren: "grandchildren",
  grandkid: "grandchildren",
  grandkids: "grandchildren",
  grandbaby: "grandchildren",
  grandson: "grandchildren",
  granddaughter: "grandchildren",
  cat: "cats",
  cats: "cats",
  dog: "dogs",
  dogs: "dogs",
  pet: "pets",
  pets: "pets",
  car: "cars",
  cars: "cars",
  employee: "employees",
  employees: "employees",
  "people on my team": "employees",
  "direct reports": "employees",
  reports: "employees",
  staff: "employees",
  marathon: "marathons",
  marathons: "marathons",
  "half marathon": "half marathons",
  "half marathons": "half marathons",
  ultra: "ultras",
  ultras: "ultras",
  book: "books written",
  books: "books written",
  house: "houses",
  houses: "houses",
  bike: "bikes",
  bikes: "bikes",
  sibling: "siblings",
  siblings: "siblings",
  roommate: "roommates",
  roommates: "roommates",
  plant: "plants",
  plants: "plants",
  tattoo: "tattoos",
  tattoos: "tattoos",
  store: "stores",
  stores: "stores",
  location: "locations",
  locations: "locations",
  client: "clients",
  clients: "clients"
}

/** Events that are planned, and the slot name each shares ("vacation" and "holiday" are a trip). */
export const plannedEvents: Readonly<Record<string, string>> = {
  trip: "trip",
  vacation: "trip",
  holiday: "trip",
  getaway: "trip",
  honeymoon: "honeymoon",
  wedding: "wedding",
  meeting: "meeting",
  appointment: "appointment",
  party: "party",
  flight: "flight",
  conference: "conference",
  interview: "interview",
  surgery: "surgery",
  operation: "surgery",
  concert: "concert",
  reunion: "reunion",
  exam: "exam",
  launch: "launch",
  deadline: "deadline",
  move: "move",
  visit: "visit",
  checkup: "appointment",
  "check-up": "appointment",
  recital: "recital",
  race: "race",
  marathon: "race",
  graduation: "graduation",
  ceremony: "ceremony",
  dinner: "dinner",
  reservation: "reservation",
  presentation: "presentation"
}

/** Number words, and ordinals ("our third child"). */
export const numbers: Readonly<Record<string, number>> = {
  zero: 0,
  no: 0,
  one: 1,
  a: 1,
  an: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  hundred: 100,
  "a couple of": 2,
  couple: 2,
  "a dozen": 12,
  dozen: 12,
  first: 1,
  second: 2,
  third: 3,
  fourth: 4,
  fifth: 5,
  sixth: 6,
  seventh: 7,
  eighth: 8,
  ninth: 9,
  tenth: 10,
  twins: 2,
  triplets: 3
}

/** Diets: the value a diet slot takes. */
export const diets = words(
  "vegan|vegetarian|pescatarian|pescetarian|keto|paleo|gluten-free|dairy-free|lactose-free|carnivore|flexitarian|plant-based|halal|kosher|raw vegan|omnivore|lacto-vegetarian|ovo-vegetarian|lacto-ovo vegetarian|meat-free|meatless"
)

/** Diets said another way, as the diet they are ("meat-free" is vegetarian). */
export const dietNames: Readonly<Record<string, string>> = {
  pescetarian: "pescatarian",
  "meat-free": "vegetarian",
  meatless: "vegetarian",
  "plant-based": "vegan",
  "raw vegan": "vegan"
}

/**
 * Car makes and models, for which car someone drives ("my old Corolla", "a Škoda Kodiaq"): a
 * capitalized word after "drive" or "my" names a car only when it is one of these.
 */
export const carNames = words(
  "Toyota|Honda|Ford|Chevrolet|Chevy|Volkswagen|VW|BMW|Audi|Mercedes|Mercedes-Benz|Benz|Tesla|Nissan|Hyundai|Kia|Mazda|Subaru|Volvo|Fiat|Renault|Peugeot|Citroën|Citroen|Škoda|Skoda|Lada|Seat|Opel|Vauxhall|Jeep|Dodge|Chrysler|Lexus|Acura|Infiniti|Porsche|Jaguar|Land Rover|Range Rover|Mini|Mitsubishi|Suzuki|Dacia|Alfa Romeo|Polestar|Rivian|Lucid|BYD|Saab|Cadillac|Buick|GMC|Lincoln|Genesis|" +
    "Corolla|Camry|Prius|RAV4|Yaris|Hilux|Tacoma|Tundra|Sienna|Highlander|Civic|Accord|CR-V|Jazz|Odyssey|Golf|Polo|Passat|Jetta|Tiguan|Beetle|Mustang|F-150|Focus|Fiesta|Ranger|Transit|Model 3|Model S|Model Y|Model X|Leaf|Micra|Qashqai|Juke|Altima|Niva|Kodiaq|Octavia|Fabia|Superb|Clio|Megane|Twingo|Zoe|Sandero|Duster|Outback|Forester|Impreza|Crosstrek|Miata|MX-5|CX-5|Ioniq|Kona|Tucson|Santa Fe|Sportage|Soul|Niro|Wrangler|Cherokee|Defender|Discovery|Cayenne|Panda|Punto|Corsa|Astra|Cooper|i3|X5|3 Series|A4|A3|Q5|Volt|Bolt|Silverado|Cybertruck"
)

const wishWords =
  "would|could|might|maybe|perhaps|possibly|probably|someday|some day|one day|dream(?:ing|s|ed)? (?:of|about)|wish(?:es|ed)?|hope|hoping|hopefully|want(?:s|ed)? to|wanna|'d love|'d like|thinking (?:of|about)|considering|should|supposed to|imagine|imagining|in another life|not sure|wondering|what if"

/**
 * A clause that asks: a question word or an auxiliary opens it and a question mark ends it. A
 * question mark alone does not ask: "I'm pescatarian now??" and "Single again and honestly?" state.
 */
export const asks =
  /^\W*(?:who|what|where|when|why|how|which|is|are|am|do|does|did|can|could|should|would|will|have|has|was|were|any|anyone|anybody|you|u)\b.*\?\W*$/i

/**
 * A way of reaching someone that a possessive gives to another: "Mum's new number is…", "Prima
 * Lupita's email changed too, it's…", "her mobile". A contact detail in such a clause is theirs,
 * not the writer's. "it's", "that's", "here's" own nothing.
 */
export const othersContact =
  /\b(?:his|her|their|(?!(?:it|that|this|here|there|what|who|where|how|let|he|she|one|today|everyone)['’]s\b)\p{L}[\p{L}-]*['’]s)\s+(?:(?:new|old|current|updated|work|personal|home|private|main|mobile|cell|phone)\s+){0,2}(?:e-?mail(?:\s+address)?|number|phone|mobile|cell|whatsapp|contact)\b/iu

/** Words that make a clause a wish or a guess: it states no fact. */
export const wishful = new RegExp(String.raw`\b(?:${wishWords})\b`, "i")

/** Words that make a clause a wish, a guess or a condition: it states no fact. */
export const hypothetical = new RegExp(String.raw`\b(?:${wishWords}|if|unless|whether)\b`, "i")

/** Words that put a change in the future: it is a plan, not yet a fact (except for plans themselves). */
export const future =
  /\b(?:will|won't|'ll|going to|gonna|planning to|plan(?:s)? to|about to|next (?:week|month|year|spring|summer|fall|autumn|winter)|in (?:a|two|three|a few) (?:weeks?|months?|years?)|soon|eventually)\b/i
