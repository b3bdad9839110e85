// The exact value of a 2-player position whose stock is empty: at two seats no card is hidden then (every card not
// in a seat's hand, on the table or in the discard is the other hand), so the deal is a game of perfect information
// and alpha-beta over the engine's own moves solves it.  The value is the deal's reward (engine/game.py:
// Result.rewards) for the seat to act with best play on both sides: +1 it gets out first, -1 it is the fool, 0 a
// draw.  Without transfers a line is finite: every bout puts cards in the discard or moves them from the attacker
// to the defender, who is never the next attacker after a take.  With them it need not be: a transfer makes the
// attacker the defender, who takes, and the cards can pass back and forth for ever; a line longer than
// ``DEPTH_LIMIT`` moves ends the search unsolved, as the node limit does (recursing on would overflow the stack).
#pragma once

#include <cstdint>
#include <unordered_map>

#include "durak.hpp"

namespace durak {

constexpr int DEPTH_LIMIT = 1000;  // far past any line that ends: 36 cards, and each bout discards two or moves one

struct Solver {
    struct Bounds {
        int8_t low = -1, high = 1;
    };
    std::unordered_map<uint64_t, Bounds> table;  // the transposition table: what is known of each position's value
    int64_t nodes = 0, limit;
    int depth = 0;  // the moves of the line searched now
    int seat = 0;  // the values are this seat's
    bool exhausted = false;

    explicit Solver(int64_t node_limit) : limit(node_limit) {}

    static uint64_t mix(uint64_t h, uint64_t v) {
        h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
        h ^= h >> 31;
        h *= 0xbf58476d1ce4e5b9ULL;
        return h ^ (h >> 29);
    }

    // Everything the rest of the deal depends on once the stock is empty: the hands, the table in its order, the
    // bout's seats and state, and the bouts played where the rules cap them.
    static uint64_t key(const Game& g) {
        uint64_t h = mix(mix(0, g.hands[0]), g.hands[1]);
        for (int i = 0; i < g.na; ++i) h = mix(h, static_cast<uint64_t>((g.attacks[i] + 1) * 64 + g.defences[i] + 1));
        h = mix(h, static_cast<uint64_t>(g.na));
        h = mix(h, static_cast<uint64_t>(g.attacker | g.defender << 3 | g.opener << 6 | g.passed << 9 |
                                         int(g.taking) << 17 | g.to_act << 18));
        if (g.rules.max_bouts >= 0) h = mix(h, static_cast<uint64_t>(g.bouts));
        return h;
    }

    // Alpha-beta for ``seat`` (it maximises, the other seat minimises) within (alpha, beta); the values are -1, 0
    // and 1, so a window of (-1, 1) gives each one exactly.
    int value(const Game& g, int alpha, int beta) {
        if (g.over) return static_cast<int>(g.result.reward(seat, 2));
        if (++nodes > limit || depth >= DEPTH_LIMIT) {
            exhausted = true;
            return 0;
        }
        uint64_t k = key(g);
        auto found = table.find(k);
        if (found != table.end()) {
            Bounds b = found->second;
            if (b.low == b.high || b.low >= beta) return b.low;
            if (b.high <= alpha) return b.high;
            if (b.low > alpha) alpha = b.low;
            if (b.high < beta) beta = b.high;
        }
        int low = alpha, high = beta;
        Game work = g;
        int count = work.legal_actions();
        int16_t moves[MAX_ACTIONS];
        std::memcpy(moves, work.legal, sizeof(int16_t) * count);
        bool mine = g.to_act == seat;
        int best = mine ? -2 : 2;
        for (int i = 0; i < count && alpha < beta; ++i) {
            Game child = g;
            child.play(moves[i]);
            ++depth;
            int v = value(child, alpha, beta);
            --depth;
            if (exhausted) return 0;
            if (mine) {
                if (v > best) best = v;
                if (best > alpha) alpha = best;
            } else {
                if (v < best) best = v;
                if (best < beta) beta = best;
            }
        }
        Bounds& b = table[k];
        if (best <= low) {
            b.high = static_cast<int8_t>(best);  // failed low: at most best
        } else if (best >= high) {
            b.low = static_cast<int8_t>(best);  // failed high: at least best
        } else {
            b.low = b.high = static_cast<int8_t>(best);
        }
        return best;
    }

    // Each legal move's exact value for the seat to act, into ``values`` (in ``g.legal``'s order); false where the
    // node limit was reached first (nothing is known then).
    bool solve(Game& g, int* values) {
        seat = g.to_act;
        int count = g.legal_actions();
        int16_t moves[MAX_ACTIONS];
        std::memcpy(moves, g.legal, sizeof(int16_t) * count);
        for (int i = 0; i < count; ++i) {
            Game child = g;
            child.play(moves[i]);
            values[i] = value(child, -1, 1);
            if (exhausted) return false;
        }
        g.legal_actions();
        return true;
    }
};

// Whether ``solve`` applies: two seats, the stock empty, the deal going on.
inline bool solvable(const Game& g) { return g.n == 2 && g.stock_len == 0 && !g.over; }

}  // namespace durak
