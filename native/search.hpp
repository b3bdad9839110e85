// The tree search of ``search:mcts`` natively (baselines/mcts.py: MCTSBot), with seed 004's heuristic for its
// rollouts (baselines/heuristic.py: heuristic_action) and the determinization it searches over
// (durak_env/engine/determinize.py: sample_world).  The same algorithm as the Python bot, step for step; its
// random numbers come from its own generator (xoshiro256**), seeded by the bot's.
//
// A search is handed a seat's view (View), never a game: the worlds it plays are dealt from what that seat
// knows, so it cannot reach a hidden card.
#pragma once

#include <chrono>
#include <cmath>
#include <vector>

#include "durak.hpp"

namespace durak {

constexpr int ROLLOUT_LIMIT = 2000;  // baselines/search.py: ROLLOUT_LIMIT
constexpr int TRUMP_LAST = 1000;     // baselines/heuristic.py: TRUMP_LAST

struct Rng {  // xoshiro256**, seeded through splitmix64
    uint64_t s[4];
    explicit Rng(uint64_t seed) {
        for (auto& word : s) {
            uint64_t z = (seed += 0x9e3779b97f4a7c15ull);
            z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
            z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
            word = z ^ (z >> 31);
        }
    }
    static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    uint64_t next() {
        uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
        s[2] ^= s[0], s[3] ^= s[1], s[1] ^= s[2], s[0] ^= s[3], s[2] ^= t, s[3] = rotl(s[3], 45);
        return result;
    }
    int below(int k) { return static_cast<int>((static_cast<unsigned __int128>(next()) * static_cast<unsigned>(k)) >> 64); }
};

// heuristic_action: seed 004's choice, from the acting seat's hand, the table and the stock's size.
inline int heuristic_action(Game& g) {
    int count = g.legal_actions();
    const Layout& lay = g.lay;
    const int trump = g.trump;
    auto key = [&](int slot) {
        int card = lay.card_of(slot);
        return (suit_of(card) == trump) * TRUMP_LAST + rank_of(card) * 4 + suit_of(card);
    };
    const int defend = lay.defend(), transfer = lay.transfer(), take = lay.take();
    bool defending = false;
    for (int i = 0; i < count; ++i) defending |= g.legal[i] == take;
    if (defending) {
        int best_transfer = -1, best_defend = -1;
        for (int i = 0; i < count; ++i) {
            int a = g.legal[i];
            if (a >= defend && a < transfer) {
                if (best_defend < 0 || key(a - defend) < key(best_defend - defend)) best_defend = a;
            } else if (a >= transfer && a < take && key(a - transfer) < TRUMP_LAST) {
                if (best_transfer < 0 || key(a - transfer) < key(best_transfer - transfer)) best_transfer = a;
            }
        }
        if (best_transfer >= 0) return best_transfer;
        if (best_defend < 0) return take;
        int target = g.attacks[g.na - g.open_count];
        int card = lay.card_of(best_defend - defend);
        if (g.stock_len == 0 && suit_of(target) != trump && suit_of(card) == trump &&
            popcount(g.hands[g.to_act] & tables().suit_mask[trump]) == 1)
            return take;  // the brake
        return best_defend;
    }
    int best = -1;
    for (int i = 0; i < count; ++i) {
        int a = g.legal[i];
        if (a < defend && (!g.taking || key(a) < TRUMP_LAST) && (best < 0 || key(a) < key(best))) best = a;
    }
    if (best >= 0) return best;
    for (int i = 0; i < count; ++i)
        if (g.legal[i] == lay.done()) return lay.done();
    return g.legal[0];
}

// What one seat sees (engine/view.py: SeatView), as determinize.sample_world reads it.
struct View {
    Rules rules;
    int seat = 0;
    Mask hand = 0;
    std::vector<int8_t> attacks, defences;
    int trump_card = 0, stock_size = 0;
    int hand_sizes[MAX_PLAYERS] = {};
    Mask known[MAX_PLAYERS] = {};
    bool discard_open = true;   // the rules show the discard (else only its count)
    Mask discard = 0;           // where open
    std::vector<int8_t> out_seats, group_ends;
    int attacker = 0, defender = 0, opener = 0, passed = 0, bouts = 0, first_seat = 0;
    bool taking = false;
};

// determinize.sample_world: the unseen cards dealt at random into the other hands, the stock and (if hidden)
// the discard.  False where the view's counts do not add up to the deck.
inline bool sample_world(const View& v, Rng& rng, Game& g) {
    const int n = v.rules.num_players;
    Mask seen = v.hand;
    for (size_t i = 0; i < v.attacks.size(); ++i) {
        seen |= Mask(1) << v.attacks[i];
        if (v.defences[i] >= 0) seen |= Mask(1) << v.defences[i];
    }
    if (v.discard_open) seen |= v.discard;
    for (int s = 0; s < n; ++s) seen |= v.known[s];
    if (v.stock_size) seen |= Mask(1) << v.trump_card;
    int8_t pool[52];
    int count = 0;
    for (int s = 0; s < 4; ++s)
        for (int rank = lowest_rank(v.rules.deck_size); rank < NUM_RANKS; ++rank) {
            int c = s * NUM_RANKS + rank;
            if (!(seen >> c & 1)) pool[count++] = static_cast<int8_t>(c);
        }
    for (int i = count - 1; i > 0; --i) {  // Fisher-Yates
        int j = rng.below(i + 1);
        int8_t t = pool[i];
        pool[i] = pool[j];
        pool[j] = t;
    }
    int next = 0;
    Mask hands[MAX_PLAYERS] = {};
    for (int s = 0; s < n; ++s) {
        if (s == v.seat) { hands[s] = v.hand; continue; }
        int need = v.hand_sizes[s] - popcount(v.known[s]);
        if (need < 0 || next + need > count) return false;
        hands[s] = v.known[s];
        for (int k = 0; k < need; ++k) hands[s] |= Mask(1) << pool[next++];
    }
    int8_t stock[52];
    int stock_len = 0;
    if (v.stock_size) {
        if (next + v.stock_size - 1 > count) return false;
        stock[stock_len++] = static_cast<int8_t>(v.trump_card);  // drawn from the back: the trump card last
        for (int k = 1; k < v.stock_size; ++k) stock[stock_len++] = pool[next++];
    }
    Mask discard = v.discard;
    if (!v.discard_open) {
        discard = 0;
        while (next < count) discard |= Mask(1) << pool[next++];
    }
    if (next != count) return false;
    return g.assemble(v.rules, v.trump_card, stock, stock_len, hands, discard, v.known, v.out_seats.data(),
                      v.group_ends.data(), static_cast<int>(v.group_ends.size()), v.attacks.data(), v.defences.data(),
                      static_cast<int>(v.attacks.size()), v.attacker, v.defender, v.opener, v.passed, v.taking,
                      v.bouts, v.first_seat);
}

// baselines/search.py: rollout, the heuristic at every seat to the end (``ROLLOUT_LIMIT`` moves, forced ones
// counted); ``seat``'s reward, 0 for a deal cut off.
inline double heuristic_rollout(Game& g, int seat) {
    for (int moves = 0; moves < ROLLOUT_LIMIT && !g.over; ++moves) {
        int count = g.legal_actions();
        if (!count) break;  // a position no deal reaches (a view's made-up facts): scored as cut off
        int action = count == 1 ? g.legal[0] : heuristic_action(g);
        g.play(action);
    }
    return g.over ? g.result.reward(seat, g.n) : 0.0;
}

// SearchBot.act's sampling (seed 001's "try out many possible layouts of the unseen cards"): in each world dealt
// from the view, every move of ``legal`` played and the deal finished by the heuristic at every seat; the seat's
// results summed per move into ``totals``.  ``worlds`` worlds, or (``seconds`` > 0) as many as that time allows,
// at least one.  Returns the worlds sampled, -1 where the view deals none, -2 for a move not legal in the view.
inline int pimc(const View& v, Rng& rng, const int* legal, int count, int worlds, double seconds, double* totals) {
    for (int i = 0; i < count; ++i) totals[i] = 0.0;
    auto start = std::chrono::steady_clock::now();
    Game world, trial;
    int sampled = 0;
    while (true) {
        if (!sample_world(v, rng, world)) return -1;
        for (int i = 0; i < count; ++i) {
            trial = world;
            if (!trial.is_legal(legal[i])) return -2;
            trial.play(legal[i]);
            totals[i] += heuristic_rollout(trial, v.seat);
        }
        ++sampled;
        if (seconds > 0 ? std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >= seconds
                        : sampled >= worlds)
            return sampled;
    }
}

// MCTSBot: single-observer ISMCTS with UCB1 and availability counts.
struct MCTS {
    struct Node {
        int first_child = -1, next_sibling = -1;
        int action = -1;
        int visits = 0, available = 0;
        double totals[MAX_PLAYERS] = {};
    };
    std::vector<Node> nodes;
    std::vector<int> path;  // the nodes of the current playout, root first
    Rng rng;
    double exploration;
    bool heuristic_rollout;

    MCTS(uint64_t seed, double c, bool heuristic) : rng(seed), exploration(c), heuristic_rollout(heuristic) {}

    int child(int node, int action) const {
        for (int k = nodes[node].first_child; k >= 0; k = nodes[k].next_sibling)
            if (nodes[k].action == action) return k;
        return -1;
    }

    int add_child(int node, int action) {
        Node c;
        c.action = action;
        c.next_sibling = nodes[node].first_child;
        nodes.push_back(c);
        int k = static_cast<int>(nodes.size()) - 1;
        nodes[node].first_child = k;
        return k;
    }

    // MCTSBot.playout: down the tree, one node added, a rollout, the results back up.
    void playout(Game& g) {
        path.clear();
        path.push_back(0);
        int node = 0;
        int untried[MAX_ACTIONS];
        while (!g.over) {
            int count = g.legal_actions();
            if (!count) break;  // a position no deal reaches: finish() scores it as cut off
            if (count == 1) {
                g.play(g.legal[0]);
                continue;
            }
            int seat = g.to_act, nuntried = 0;
            for (int i = 0; i < count; ++i) {
                int k = child(node, g.legal[i]);
                if (k >= 0) ++nodes[k].available;
                else untried[nuntried++] = g.legal[i];
            }
            if (nuntried) {
                int action = untried[static_cast<int>(uniform() * nuntried)];
                int k = add_child(node, action);
                nodes[k].available = 1;
                g.play(action);
                path.push_back(k);
                break;
            }
            int best = -1, best_node = -1;
            double best_score = -1.0;
            for (int i = 0; i < count; ++i) {
                int k = child(node, g.legal[i]);
                const Node& c = nodes[k];
                double score = (c.totals[seat] / c.visits + 1) / 2 +
                               exploration * std::sqrt(std::log(static_cast<double>(c.available)) / c.visits);
                if (score > best_score) best = g.legal[i], best_node = k, best_score = score;
            }
            node = best_node;
            g.play(best);
            path.push_back(node);
        }
        double rewards[MAX_PLAYERS];
        finish(g, rewards);
        for (int k : path) {
            Node& v = nodes[k];
            ++v.visits;
            for (int s = 0; s < g.n; ++s) v.totals[s] += rewards[s];
        }
    }

    double uniform() { return static_cast<double>(rng.next() >> 11) * 0x1.0p-53; }

    // MCTSBot.finish: to the deal's end by random moves (or the heuristic at every seat); 0 each if cut off.
    void finish(Game& g, double* rewards) {
        for (int moves = 0; moves < ROLLOUT_LIMIT && !g.over; ++moves) {
            int count = g.legal_actions();
            if (!count) break;
            int action = count == 1 ? g.legal[0]
                         : heuristic_rollout ? heuristic_action(g) : g.legal[static_cast<int>(uniform() * count)];
            g.play(action);
        }
        for (int s = 0; s < g.n; ++s) rewards[s] = g.over ? g.result.reward(s, g.n) : 0.0;
    }

    // MCTSBot.act with the budget spent: playouts (> 0), or as many as ``seconds`` allow (at least one).
    // Returns the root's most visited move (the lowest on a tie); ``made`` says how many playouts were made.
    // -1 where the view is impossible (no world deals from it).
    int search(const View& v, int64_t playouts, double seconds, int64_t& made) {
        nodes.clear();
        nodes.reserve(playouts > 0 ? static_cast<size_t>(playouts) + 1 : 1 << 16);
        nodes.emplace_back();
        path.reserve(256);
        Game world;
        if (!sample_world(v, rng, world)) return -1;
        int count = world.legal_actions();
        if (!count) return -1;  // the seat has no move in this view
        int legal[MAX_ACTIONS];
        for (int i = 0; i < count; ++i) legal[i] = world.legal[i];
        if (count == 1) {
            made = 0;
            return legal[0];
        }
        auto start = std::chrono::steady_clock::now();
        made = 0;
        while (true) {
            if (made) {
                if (!sample_world(v, rng, world)) return -1;
            }
            playout(world);
            ++made;
            if (playouts > 0 ? made >= playouts
                             : std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >= seconds)
                break;
        }
        int best = legal[0], best_visits = -2;
        for (int i = 0; i < count; ++i) {
            int k = child(0, legal[i]);
            int visits = k >= 0 ? nodes[k].visits : -1;
            if (visits > best_visits) best = legal[i], best_visits = visits;  // legal is ascending: lowest on a tie
        }
        return best;
    }
};

// NetSearchBot (baselines/netsearch.py): PUCT over dealt worlds, the network's priors and values standing in for
// rollouts.  The network stays in Python (ONNX Runtime): a batch of playouts goes down to its leaves here
// (``descend_batch``, the leaves' observations and masks written into the caller's arrays), the network reads
// them, and its answers are backed up here (``advance``).
struct NetSearch {
    struct Node {
        int first_child = -1, next_sibling = -1, action = -1;
        int visits = 0, pending = 0;
        int prior_start = -1, prior_count = 0;  // priors[prior_start ..): (action, probability); -1: not seen yet
        double totals[MAX_PLAYERS] = {};
    };
    struct Leaf {
        std::vector<int> path;
        Game game;
        int row = -1;         // the row in the batch's arrays of what the network is to read next, -1: none
        bool asks = false;    // the row is another seat's move to choose (``opponents``), not a leaf to value
        double rewards[MAX_PLAYERS] = {};
    };
    std::vector<Node> nodes;
    std::vector<std::pair<int, double>> priors;
    std::vector<Leaf> leaves;
    int nleaves = 0;
    View view;
    Rng rng;
    double c_puct;
    bool universal;
    bool opponents;  // the other seats play the network's move for their own hand in each world, not the tree's
    bool fool_stake;  // a deal's end pays the fool's stake (staked), not the placings
    double explore = 0.0;  // the root's priors: this share spread evenly over its moves, the rest the network's
    int obs_size, num_actions;

    NetSearch(const View& v, uint64_t seed, double c, bool universal_layout, bool model_opponents = false,
              bool stake_on_fool = false)
        : view(v), rng(seed), c_puct(c), universal(universal_layout), opponents(model_opponents), fool_stake(stake_on_fool),
          obs_size(observation_size(v.rules, universal_layout)), num_actions(Layout::of(v.rules.deck_size).size()) {
        nodes.emplace_back();
    }

    int child(int node, int action) const {
        for (int k = nodes[node].first_child; k >= 0; k = nodes[k].next_sibling)
            if (nodes[k].action == action) return k;
        return -1;
    }

    double prior(const Node& node, int action, double uniform) const {
        for (int k = 0; k < node.prior_count; ++k)
            if (priors[node.prior_start + k].first == action) return priors[node.prior_start + k].second;
        return uniform;
    }

    // Down the tree from ``node`` by ``action``: the child (made where new), a playout more passing it.
    void go(Leaf& leaf, int action) {
        int node = leaf.path.back();
        int k = child(node, action);
        if (k < 0) {
            Node c;
            c.action = action;
            c.next_sibling = nodes[node].first_child;
            nodes.push_back(c);
            k = static_cast<int>(nodes.size()) - 1;
            nodes[node].first_child = k;
        }
        ++nodes[k].pending;
        leaf.game.play(action);
        leaf.path.push_back(k);
    }

    // NetSearchBot.descend, from where the playout stands: to a node the network has not seen or the end of the
    // deal; with ``opponents``, also to another seat's choice (``asks``), and once the searching seat is out its
    // result is settled, so the heuristic finishes the deal.
    void descend(Leaf& leaf) {
        Game& g = leaf.game;
        leaf.asks = false;
        while (!g.over && !cut_off(leaf)) {
            int count = g.legal_actions();
            if (!count) break;  // a position no deal reaches: evaluated as it stands
            if (count == 1) {
                g.play(g.legal[0]);
                continue;
            }
            if (opponents && (g.out_mask >> view.seat & 1)) {
                heuristic_rollout(g, view.seat);
                return;
            }
            if (opponents && g.to_act != view.seat) {
                leaf.asks = true;
                return;
            }
            int node = leaf.path.back();
            if (nodes[node].prior_start < 0) break;
            int seat = g.to_act;
            double uniform = 1.0 / count;
            double scale = c_puct * std::sqrt(static_cast<double>(nodes[node].visits + nodes[node].pending + 1));
            int best = g.legal[0];
            double best_score = -INFINITY;
            for (int i = 0; i < count; ++i) {
                int a = g.legal[i];
                int k = child(node, a);
                double p = prior(nodes[node], a, uniform), score;
                if (k < 0) {
                    score = scale * p;
                } else {
                    const Node& c = nodes[k];
                    int n = c.visits + c.pending;
                    double q = n ? (c.totals[seat] - c.pending) / n : 0.0;
                    score = q + scale * p / (1 + n);
                }
                if (score > best_score) best = a, best_score = score;
            }
            go(leaf, best);
        }
    }

    // A playout that has chosen ``ROLLOUT_LIMIT`` moves (seats that pass cards back and forth for ever) ends there.
    static bool cut_off(const Leaf& leaf) { return leaf.path.size() > static_cast<size_t>(ROLLOUT_LIMIT); }

    // After ``descend``: the playout's results where its deal is over (or, with ``opponents``, settled for the
    // searching seat; 0 where cut off), else its position's observation and mask written into row ``rows`` of
    // ``obs`` / ``mask``; returns the rows written.
    int ask(Leaf& leaf, int rows, float* obs, int8_t* mask) {
        Game& g = leaf.game;
        leaf.row = -1;
        if (g.over || cut_off(leaf) || (opponents && (g.out_mask >> view.seat & 1))) {
            for (int s = 0; s < g.n; ++s) leaf.rewards[s] = g.over ? g.result.reward(s, g.n, fool_stake) : 0.0;
            return rows;
        }
        leaf.row = rows;
        encode(g, g.to_act, universal, obs + static_cast<size_t>(rows) * obs_size);
        int8_t* m = mask + static_cast<size_t>(rows) * num_actions;
        std::memset(m, 0, num_actions);
        int count = g.legal_actions();
        for (int k = 0; k < count; ++k) m[g.legal[k]] = 1;
        return rows + 1;
    }

    // NetSearchBot.playout_batch, its first half: ``size`` playouts down to what the network must read; the
    // observation and mask of each written into the next row of ``obs`` / ``mask``.  Returns those rows (0: the
    // batch is backed up already), or -1 where the view deals no world.
    int descend_batch(int size, float* obs, int8_t* mask) {
        if (static_cast<int>(leaves.size()) < size) leaves.resize(size);
        nleaves = size;
        int rows = 0;
        for (int i = 0; i < size; ++i) {
            Leaf& leaf = leaves[i];
            if (!sample_world(view, rng, leaf.game)) {
                nleaves = 0;  // nothing to back up: the search cannot go on from this view
                return -1;
            }
            leaf.path.assign(1, 0);
            descend(leaf);
            rows = ask(leaf, rows, obs, mask);
        }
        if (!rows) finish();
        return rows;
    }

    // Its second half: the network's probabilities [rows, num_actions] and values [rows] for those rows.  A leaf
    // takes its priors and value; another seat's choice (``opponents``) is drawn from its probabilities and the
    // playout goes on down, its next row written into ``obs`` / ``mask``.  Returns the rows written; at 0 every
    // playout's result is backed up.
    int advance(const float* probs, const float* values, float* obs, int8_t* mask) {
        for (int i = 0; i < nleaves; ++i) {
            Leaf& leaf = leaves[i];
            if (leaf.row < 0) continue;
            Game& g = leaf.game;
            const float* p = probs + static_cast<size_t>(leaf.row) * num_actions;
            int count = g.legal_actions();
            double total = 0.0;
            for (int k = 0; k < count; ++k) total += p[g.legal[k]];
            if (leaf.asks) {
                double u = static_cast<double>(rng.next() >> 11) * 0x1.0p-53 * total;
                int action = g.legal[count - 1];
                for (int k = 0; k < count; ++k) {
                    u -= p[g.legal[k]];
                    if (u < 0) {
                        action = g.legal[k];
                        break;
                    }
                }
                go(leaf, action);
                continue;
            }
            Node& node = nodes[leaf.path.back()];
            if (node.prior_start < 0) {  // two playouts of a batch may reach the same new node
                if (total == 0.0) total = 1.0;
                node.prior_start = static_cast<int>(priors.size());
                node.prior_count = count;
                double even = leaf.path.back() == 0 ? explore : 0.0;
                for (int k = 0; k < count; ++k)
                    priors.emplace_back(g.legal[k], (1 - even) * p[g.legal[k]] / total + even / count);
            }
            double value = values[leaf.row];  // NetSearchBot.spread
            for (int s = 0; s < g.n; ++s) leaf.rewards[s] = s == g.to_act ? value : -value / (g.n - 1);
            leaf.row = -1;
        }
        int rows = 0;
        for (int i = 0; i < nleaves; ++i) {
            Leaf& leaf = leaves[i];
            if (leaf.row < 0) continue;  // settled
            descend(leaf);
            rows = ask(leaf, rows, obs, mask);
        }
        if (!rows) finish();
        return rows;
    }

    // Every playout's result backed up along its path; the virtual losses taken back.
    void finish() {
        for (int i = 0; i < nleaves; ++i) {
            Leaf& leaf = leaves[i];
            int n = leaf.game.n;
            for (int k : leaf.path) {
                Node& node = nodes[k];
                if (k != 0) --node.pending;
                ++node.visits;
                for (int s = 0; s < n; ++s) node.totals[s] += leaf.rewards[s];
            }
        }
        nleaves = 0;
    }

    // NetSearchBot.act's choice among ``legal``: the most visited move, then the highest prior, then the first.
    int best(const int* legal, int count) const {
        int best = legal[0];
        int best_visits = -1;
        double best_prior = -1.0;
        for (int i = 0; i < count; ++i) {
            int k = child(0, legal[i]);
            int visits = k >= 0 ? nodes[k].visits : 0;
            double p = prior(nodes[0], legal[i], 0.0);
            if (visits > best_visits || (visits == best_visits && p > best_prior))
                best = legal[i], best_visits = visits, best_prior = p;
        }
        return best;
    }
};

}  // namespace durak
