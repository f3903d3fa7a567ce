import { Schema } from "effect"

/**
 * A category a memory may be filed under: a short name (what filters and answers show) and a
 * description, which is what the categorizer compares the memory with.
 */
const categoryName = /^[A-Za-z0-9][A-Za-z0-9_. -]{0,63}$/

export const Category = Schema.Struct({
  name: Schema.String.check(
    Schema.makeFilter((text: string) => categoryName.test(text), {
      message: "must be 1 to 64 letters, digits, spaces, `_`, `.` or `-`, starting with a letter or digit",
      // The pattern stated for the OpenAPI document too, so a generated request keeps to it.
      toJsonSchema: () => ({ pattern: categoryName.source })
    })
  ).annotate({ description: "the category's name, e.g. `travel` or `meal_planning`" }),
  description: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(500)).annotate({
    description: "what belongs in it, in a sentence (1 to 500 characters): the categorizer reads this"
  })
})
export type Category = typeof Category.Type

/** At most this many categories in an account's list. */
export const maxCategories = 50

/** The category a memory gets when no other is near enough (in the default list). */
export const fallbackCategory = "misc"

/**
 * Mem0's default categories (its documented list of fifteen), each with a description written
 * here for the categorizer to compare memories with.
 */
export const defaultCategories: ReadonlyArray<Category> = [
  {
    name: "personal_details",
    description:
      "Personal details about the person: their name, age, birthday, where they live or grew up, nationality, languages they speak, contact details"
  },
  {
    name: "family",
    description:
      "Family and relationships: partner, spouse, children, parents, siblings, relatives, pets, family events and life at home with them"
  },
  {
    name: "professional_details",
    description:
      "Work and career: job, employer, role, colleagues, manager, work projects, meetings, clients, salary, studies and skills for work"
  },
  {
    name: "sports",
    description:
      "Sports and exercise: playing or watching sports, teams they support, running, cycling, swimming, gym workouts, races and matches"
  },
  {
    name: "travel",
    description:
      "Travel: trips, holidays, flights, trains, hotels, destinations, visas and passports, places they plan to visit"
  },
  {
    name: "food",
    description:
      "Food and drink: meals, diet, cuisines, restaurants, cooking and recipes, food they like or avoid, coffee, tea, wine"
  },
  {
    name: "music",
    description: "Music: songs, bands, artists, genres, instruments they play, concerts, playlists, singing"
  },
  {
    name: "health",
    description:
      "Health and wellbeing: illnesses, symptoms, medication, doctors, allergies, injuries, sleep, mental health, therapy, pregnancy"
  },
  {
    name: "technology",
    description:
      "Technology: phones, computers, devices, software, apps, programming, internet, gadgets and their settings"
  },
  {
    name: "hobbies",
    description:
      "Hobbies and pastimes: gardening, reading, painting, drawing, photography, crafts, knitting, board games, collecting, volunteering"
  },
  {
    name: "fashion",
    description:
      "Fashion and appearance: clothes, shoes, style, brands they wear, sizes, jewellery, accessories, haircut, makeup"
  },
  {
    name: "entertainment",
    description:
      "Entertainment: films, TV series, shows, novels and books read for fun, video games, podcasts, celebrities, theatre"
  },
  {
    name: "milestones",
    description:
      "Milestones and big life events: graduation, wedding, engagement, a new job, a promotion, moving house, a birth, retirement, anniversaries, first times"
  },
  {
    name: "user_preferences",
    description:
      "Preferences: what they like or dislike, how they want things done, how they want the assistant to answer, talk to them or remind them"
  },
  {
    name: fallbackCategory,
    description:
      "Anything else: other facts, notes, errands and reminders that fit none of the other categories"
  }
]
