/**
 * A hand-labelled extraction set: for each sentence, the entities a careful reader marks (text
 * and type) and the subject–verb–object triples it states. Written for this project; the labels
 * follow the conventions of docs/plugins.md (verbs keep their auxiliaries, negation and
 * preposition: "was born in"; determiners are not part of subjects or objects).
 */
export interface LabelledSentence {
  readonly text: string
  readonly entities: ReadonlyArray<readonly [text: string, type: string]>
  readonly triples: ReadonlyArray<readonly [subject: string, verb: string, object: string]>
}

export const labelledSentences: ReadonlyArray<LabelledSentence> = [
  {
    text: "Marie Curie was born in Warsaw and worked in Paris.",
    entities: [
      ["Marie Curie", "PERSON"],
      ["Warsaw", "LOCATION"],
      ["Paris", "LOCATION"]
    ],
    triples: [
      ["Marie Curie", "was born in", "Warsaw"],
      ["Marie Curie", "worked in", "Paris"]
    ]
  },
  {
    text: "Apple hired Tim Cook in 1998.",
    entities: [
      ["Apple", "ORGANIZATION"],
      ["Tim Cook", "PERSON"],
      ["1998", "DATE"]
    ],
    triples: [["Apple", "hired", "Tim Cook"]]
  },
  {
    text: "Barack Obama visited Berlin on 19 June 2013.",
    entities: [
      ["Barack Obama", "PERSON"],
      ["Berlin", "LOCATION"],
      ["19 June 2013", "DATE"]
    ],
    triples: [["Barack Obama", "visited", "Berlin"]]
  },
  {
    text: "Microsoft acquired GitHub for $7.5 billion in 2018.",
    entities: [
      ["Microsoft", "ORGANIZATION"],
      ["GitHub", "ORGANIZATION"],
      ["$7.5 billion", "MONEY"],
      ["2018", "DATE"]
    ],
    triples: [["Microsoft", "acquired", "GitHub"]]
  },
  {
    text: "Send the report to anna@example.com before Friday.",
    entities: [
      ["anna@example.com", "EMAIL"],
      ["Friday", "DATE"]
    ],
    triples: []
  },
  {
    text: "The documentation lives at https://docs.example.org and is updated weekly.",
    entities: [["https://docs.example.org", "URL"]],
    triples: []
  },
  {
    text: "Angela Merkel led Germany for sixteen years.",
    entities: [
      ["Angela Merkel", "PERSON"],
      ["Germany", "LOCATION"]
    ],
    triples: [["Angela Merkel", "led", "Germany"]]
  },
  {
    text: "Sarah moved to London in March 2021.",
    entities: [
      ["Sarah", "PERSON"],
      ["London", "LOCATION"],
      ["March 2021", "DATE"]
    ],
    triples: [["Sarah", "moved to", "London"]]
  },
  {
    text: "The committee approved the budget of $2 million on Tuesday.",
    entities: [
      ["$2 million", "MONEY"],
      ["Tuesday", "DATE"]
    ],
    triples: [["committee", "approved", "budget"]]
  },
  {
    text: "Google opened a new office in Zurich.",
    entities: [
      ["Google", "ORGANIZATION"],
      ["Zurich", "LOCATION"]
    ],
    triples: [["Google", "opened", "new office"]]
  },
  {
    text: "John Smith joined Acme Corp. as chief engineer.",
    entities: [
      ["John Smith", "PERSON"],
      ["Acme Corp.", "ORGANIZATION"]
    ],
    triples: [["John Smith", "joined", "Acme Corp."]]
  },
  {
    text: "Melanie painted a lake at sunrise last summer.",
    entities: [
      ["Melanie", "PERSON"],
      ["last summer", "DATE"]
    ],
    triples: [["Melanie", "painted", "lake"]]
  },
  {
    text: "Caroline went to the LGBTQ support group yesterday.",
    entities: [
      ["Caroline", "PERSON"],
      ["yesterday", "DATE"]
    ],
    triples: [["Caroline", "went to", "LGBTQ support group"]]
  },
  {
    text: "Unemployment fell to 3.5% in September.",
    entities: [
      ["3.5%", "PERCENT"],
      ["September", "DATE"]
    ],
    triples: [["Unemployment", "fell to", "3.5%"]]
  },
  {
    text: "Elon Musk founded SpaceX in 2002.",
    entities: [
      ["Elon Musk", "PERSON"],
      ["SpaceX", "ORGANIZATION"],
      ["2002", "DATE"]
    ],
    triples: [["Elon Musk", "founded", "SpaceX"]]
  },
  {
    text: "The meeting starts at 10:30 am in Room 4.",
    entities: [["10:30 am", "TIME"]],
    triples: [["meeting", "starts at", "10:30 am"]]
  },
  {
    text: "Dr. Alice Wong published a paper on protein folding.",
    entities: [["Alice Wong", "PERSON"]],
    triples: [["Alice Wong", "published", "paper"]]
  },
  {
    text: "Amazon bought Whole Foods for $13.7 billion.",
    entities: [
      ["Amazon", "ORGANIZATION"],
      ["Whole Foods", "ORGANIZATION"],
      ["$13.7 billion", "MONEY"]
    ],
    triples: [["Amazon", "bought", "Whole Foods"]]
  },
  {
    text: "My sister lives in Toronto with her two cats.",
    entities: [["Toronto", "LOCATION"]],
    triples: [["sister", "lives in", "Toronto"]]
  },
  {
    text: "Pierre met Marie in Paris in 1894.",
    entities: [
      ["Pierre", "PERSON"],
      ["Marie", "PERSON"],
      ["Paris", "LOCATION"],
      ["1894", "DATE"]
    ],
    triples: [["Pierre", "met", "Marie"]]
  },
  {
    text: "The company has not released the new phone yet.",
    entities: [],
    triples: [["company", "has not released", "new phone"]]
  },
  {
    text: "Tokyo hosted the Olympic Games in 2021.",
    entities: [
      ["Tokyo", "LOCATION"],
      ["2021", "DATE"]
    ],
    triples: [["Tokyo", "hosted", "Olympic Games"]]
  },
  {
    text: "Maria bought a bicycle for $450 on Saturday.",
    entities: [
      ["Maria", "PERSON"],
      ["$450", "MONEY"],
      ["Saturday", "DATE"]
    ],
    triples: [["Maria", "bought", "bicycle"]]
  },
  {
    text: "Contact support@acme.io for a refund.",
    entities: [["support@acme.io", "EMAIL"]],
    triples: []
  },
  {
    text: "Leonardo da Vinci painted the Mona Lisa.",
    entities: [["Leonardo da Vinci", "PERSON"]],
    triples: [["Leonardo da Vinci", "painted", "Mona Lisa"]]
  },
  {
    text: "Netflix raised its prices by 10% in January.",
    entities: [
      ["Netflix", "ORGANIZATION"],
      ["10%", "PERCENT"],
      ["January", "DATE"]
    ],
    triples: [["Netflix", "raised", "its prices"]]
  },
  {
    text: "James and Emma adopted a puppy last week.",
    entities: [
      ["James", "PERSON"],
      ["Emma", "PERSON"],
      ["last week", "DATE"]
    ],
    triples: [["James and Emma", "adopted", "puppy"]]
  },
  {
    text: "The river flows through Vienna and Budapest.",
    entities: [
      ["Vienna", "LOCATION"],
      ["Budapest", "LOCATION"]
    ],
    triples: [["river", "flows through", "Vienna and Budapest"]]
  },
  {
    text: "Nelson Mandela became president of South Africa in 1994.",
    entities: [
      ["Nelson Mandela", "PERSON"],
      ["South Africa", "LOCATION"],
      ["1994", "DATE"]
    ],
    triples: [["Nelson Mandela", "became", "president of South Africa"]]
  },
  {
    text: "She teaches mathematics at Stanford University.",
    entities: [["Stanford University", "ORGANIZATION"]],
    triples: [["She", "teaches", "mathematics"]]
  },
  {
    text: "Our team shipped version 2.0 on 3 April 2024.",
    entities: [["3 April 2024", "DATE"]],
    triples: [["team", "shipped", "version 2.0"]]
  },
  {
    text: "David called his mother in Chicago on Sunday evening.",
    entities: [
      ["David", "PERSON"],
      ["Chicago", "LOCATION"],
      ["Sunday evening", "DATE"]
    ],
    triples: [["David", "called", "his mother"]]
  },
  {
    text: "The United Nations was founded in 1945.",
    entities: [
      ["United Nations", "ORGANIZATION"],
      ["1945", "DATE"]
    ],
    triples: [["United Nations", "was founded in", "1945"]]
  },
  {
    text: "Shakespeare wrote Hamlet around 1600.",
    entities: [
      ["Shakespeare", "PERSON"],
      ["1600", "DATE"]
    ],
    triples: [["Shakespeare", "wrote", "Hamlet"]]
  },
  {
    text: "Tesla recalled 2 million cars in December 2023.",
    entities: [
      ["Tesla", "ORGANIZATION"],
      ["December 2023", "DATE"]
    ],
    triples: [["Tesla", "recalled", "2 million cars"]]
  },
  {
    text: "Priya started a pottery class in Boston.",
    entities: [
      ["Priya", "PERSON"],
      ["Boston", "LOCATION"]
    ],
    triples: [["Priya", "started", "pottery class"]]
  },
  {
    text: "The bank charged a fee of €25.",
    entities: [["€25", "MONEY"]],
    triples: [["bank", "charged", "fee of €25"]]
  },
  {
    text: "Albert Einstein developed the theory of relativity.",
    entities: [["Albert Einstein", "PERSON"]],
    triples: [["Albert Einstein", "developed", "theory of relativity"]]
  },
  {
    text: "Mark Zuckerberg launched Facebook from Harvard in 2004.",
    entities: [
      ["Mark Zuckerberg", "PERSON"],
      ["Facebook", "ORGANIZATION"],
      ["Harvard", "ORGANIZATION"],
      ["2004", "DATE"]
    ],
    triples: [["Mark Zuckerberg", "launched", "Facebook"]]
  },
  {
    text: "Rome is the capital of Italy.",
    entities: [
      ["Rome", "LOCATION"],
      ["Italy", "LOCATION"]
    ],
    triples: [["Rome", "is", "capital of Italy"]]
  },
  {
    text: "Lisa reads a novel every night.",
    entities: [["Lisa", "PERSON"]],
    triples: [["Lisa", "reads", "novel"]]
  },
  {
    text: "The startup raised $5 million from investors in Singapore.",
    entities: [
      ["$5 million", "MONEY"],
      ["Singapore", "LOCATION"]
    ],
    triples: [["startup", "raised", "$5 million"]]
  },
  {
    text: "Carlos plays guitar in a jazz band.",
    entities: [["Carlos", "PERSON"]],
    triples: [["Carlos", "plays", "guitar"]]
  },
  {
    text: "IBM announced a quantum computer on 9 November 2022.",
    entities: [
      ["IBM", "ORGANIZATION"],
      ["9 November 2022", "DATE"]
    ],
    triples: [["IBM", "announced", "quantum computer"]]
  },
  {
    text: "Follow the updates on https://status.example.com.",
    entities: [["https://status.example.com", "URL"]],
    triples: []
  },
  {
    text: "Jane Austen wrote Pride and Prejudice in 1813.",
    entities: [
      ["Jane Austen", "PERSON"],
      ["1813", "DATE"]
    ],
    triples: [["Jane Austen", "wrote", "Pride and Prejudice"]]
  }
]
